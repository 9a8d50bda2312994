/// The command line of a benchmark run:
/// `stratus-bench [--backends sqlite,memory] [--quick] [--out DIR] [--postgres-url URL]`.
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

    /// The usage text.
    static let usage = """
        usage: stratus-bench [--backends \(BenchmarkTargets.all.map(\.name).joined(separator: ","))] [--quick] [--out DIR] \
                   [--postgres-url postgresql://user@host:port/database]
               stratus-bench replay <backend> [--records N] [--misses N] [--sets N] [--key-bytes N] [--value-bytes N] \
                   [--record-in-change-log]
               stratus-bench profile <backend> saves|drain [--records N] [--rounds N]
               stratus-bench drain-rss <backend> <records> [--store PATH --zone NAME]   (run by the benchmark itself)
        """

    /// Parses `arguments` (without the program name).
    init(_ arguments: [String]) throws {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick":
                quick = true
            case "--backends":
                guard let list = remaining.popFirst() else { throw BenchmarkFailure("--backends needs a list") }
                targets = try list.split(separator: ",").map { name in
                    guard let target = BenchmarkTargets.named(String(name)) else {
                        throw BenchmarkFailure(
                            "unknown backend '\(name)'; known: \(BenchmarkTargets.all.map(\.name).joined(separator: ", "))"
                        )
                    }
                    return target
                }
            case "--out":
                guard let directory = remaining.popFirst() else { throw BenchmarkFailure("--out needs a directory") }
                outputDirectory = directory
            case "--postgres-url":
                guard let url = remaining.popFirst() else { throw BenchmarkFailure("--postgres-url needs a URL") }
                settings.postgresURL = url
            case "-h", "--help":
                throw BenchmarkFailure(Options.usage)
            default:
                throw BenchmarkFailure("unknown argument '\(argument)'\n\(Options.usage)")
            }
        }
    }
}
