import ArgumentParser
import Foundation

/// `stratus-bench remote`: the embedded benchmark's saves, drains, incremental sync and query
/// paging, run embedded and through a remote container on a `stratusd` on loopback, side by
/// side per backend (issue 12).
struct RemoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote",
        abstract: "Saves, drains, incremental sync and paging: embedded and through a remote container on stratusd.",
        discussion: """
            For each backend: the measurements embedded on a new store, then the same code through \
            CKContainer(identifier:server:) on a stratusd child process serving another new store of \
            that backend on loopback. Prints the table (remote ÷ embedded, and the flatness ratios) and \
            writes remote-results.json and remote-table.md. The memory backend cannot be served: \
            stratusd admin and stratusd would each have a store of their own.
            """)

    @Option(
        help: ArgumentHelp(
            "Backends, comma-separated: sqlite, lmdb, postgresql (default: sqlite,postgresql).", valueName: "list"))
    var backends: BackendList?

    @Option(help: "Records saved, drained and paged (default: 100,000; 10,000 with --quick).")
    var records: Int?

    @Option(
        help: ArgumentHelp(
            "History sizes of the incremental sync, comma-separated (default: 10000,100000,1000000).",
            valueName: "list"))
    var history: String?

    @Option(help: "Runs of the saves and the drains; the median is reported (default: 3; 1 with --quick).")
    var repetitions: Int?

    @Flag(help: "Small sizes: a smoke run.")
    var quick = false

    @Option(help: ArgumentHelp("The stratusd to run (a release build).", valueName: "path"))
    var stratusd = "Benchmarks/.build-bench/release/stratusd"

    @OptionGroup var destination: RunDestinationOptions

    /// The backends of the run: `--backends`, or SQLite and PostgreSQL.
    private var targets: [any BenchmarkTarget] {
        backends?.targets ?? ["sqlite", "postgresql"].compactMap(BenchmarkTargets.named)
    }

    func validate() throws {
        if targets.contains(where: { $0.name == InMemoryTarget().name }) {
            throw ValidationError(
                "the memory backend cannot be served: stratusd admin and stratusd would each have a store of their own")
        }
        if let records, records < 1000 { throw ValidationError("--records must be at least 1000") }
        if let repetitions, repetitions < 1 { throw ValidationError("--repetitions must be at least 1") }
        if let history, historySizes(history) == nil {
            throw ValidationError("--history takes sizes above 1000, comma-separated, smallest first: \(history)")
        }
        guard FileManager.default.isExecutableFile(atPath: stratusd) else {
            throw ValidationError("no stratusd at \(stratusd): build it (see Docs/Performance.md) or pass --stratusd")
        }
    }

    func run() throws {
        var sizes = quick ? Sizes.quick : Sizes.full
        if let records { sizes.savedRecords = records }
        if let history { sizes.historySizes = historySizes(history) ?? sizes.historySizes }
        if let repetitions { sizes.repetitions = repetitions }
        try RemoteBenchmark(
            sizes: sizes, settings: destination.settings, stratusd: stratusd,
            outputDirectory: destination.outputDirectory
        )
        .run(targets)
    }

    /// The sizes of `text`, if each is above the changes an incremental sync fetches (1,000),
    /// in increasing order.
    private func historySizes(_ text: String) -> [Int]? {
        let sizes = text.split(separator: ",").compactMap { Int($0) }
        guard !sizes.isEmpty, sizes.count == text.split(separator: ",").count, sizes.allSatisfy({ $0 > 1000 }),
            sizes == sizes.sorted()
        else { return nil }
        return sizes
    }
}
