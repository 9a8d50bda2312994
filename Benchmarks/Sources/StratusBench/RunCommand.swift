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

    @OptionGroup var destination: RunDestinationOptions

    func run() throws {
        var options = Options(quick: quick, outputDirectory: destination.outputDirectory)
        if let backends { options.targets = backends.targets }
        options.settings = destination.settings
        try runBenchmarks(options)
    }
}
