import ArgumentParser

/// `stratus-bench [run] [--backends sqlite,memory] [--quick] [--out DIR] [--postgres-url URL]`:
/// the benchmark, the default subcommand.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Measure every selected backend and write results.json, scaling.svg and table.md.")

    @Option(
        help: ArgumentHelp(
            "The backends to run, comma-separated, in order: "
                + BenchmarkTargets.all.map(\.name).joined(separator: ",") + " (default: all).",
            valueName: "list"))
    var backends: BackendList?

    @Flag(help: "Small sizes: a smoke run, seconds per backend.")
    var quick = false

    @Option(name: .customLong("out"), help: ArgumentHelp("Where the results go.", valueName: "directory"))
    var outputDirectory = "Benchmarks/results"

    @Option(
        help: ArgumentHelp(
            "A PostgreSQL server on which each run creates a database of its own (default: "
                + "STRATUS_BENCH_POSTGRES_URL, else a private server started for the run).",
            valueName: "postgresql://user@host:port/database"))
    var postgresURL: String?

    func run() throws {
        var options = Options(quick: quick, outputDirectory: outputDirectory)
        if let backends { options.targets = backends.targets }
        if let postgresURL { options.settings.postgresURL = postgresURL }
        try runBenchmarks(options)
    }
}
