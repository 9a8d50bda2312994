/// What a benchmark run measures and where its results go (the options of
/// ``RunCommand``).
struct Options {
    /// The backends to run, in order.
    var targets: [any BenchmarkTarget] = BenchmarkTargets.all
    /// Whether to use ``Sizes/quick``.
    var quick = false
    /// Where the JSON, the SVG and the Markdown table go (relative to the current directory,
    /// normally the repository root).
    var outputDirectory = "Benchmarks/results"
    /// What the backends need from outside (the PostgreSQL server): `STRATUS_BENCH_POSTGRES_URL`,
    /// overridden by `--postgres-url`.
    var settings = TargetSettings.fromEnvironment()
}
