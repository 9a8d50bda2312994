import ArgumentParser
import Foundation

/// `stratus-bench queries`: queries matching ten records as their zone grows (issue 13).
struct QueryScaleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queries",
        abstract: "Indexed queries matching ten records, in one zone grown from 10k to 1M records.",
        discussion: """
            For each backend: a new store, one zone grown to each size in turn (400 records per \
            CKModifyRecordsOperation); at each size every query (equality on a number and a string, \
            a range, BEGINSWITH, IN, list CONTAINS, reference equality, self CONTAINS, a range sorted \
            by its field) runs --repetitions times and must return exactly its ten records. Then the \
            first query sorted by a field no query used, against later ones. Prints the table and \
            writes queries-results.json and queries-table.md.
            """)

    @Option(help: ArgumentHelp("Backends, comma-separated (default: all).", valueName: "list"))
    var backends: BackendList?

    @Option(
        help: ArgumentHelp(
            "Zone sizes, comma-separated, smallest first (default: 10000,100000,1000000).", valueName: "list"))
    var sizes = "10000,100000,1000000"

    @Option(help: "Timed runs of each query at each size; the median is reported.")
    var repetitions = 7

    @OptionGroup var destination: RunDestinationOptions

    /// The sizes of `--sizes`, or `nil` when they are not at least 10,000 and increasing.
    private var zoneSizes: [Int]? {
        let parts = sizes.split(separator: ",")
        let values = parts.compactMap { Int($0) }
        guard !values.isEmpty, values.count == parts.count, values.allSatisfy({ $0 >= 10_000 }),
            values == values.sorted()
        else { return nil }
        return values
    }

    func validate() throws {
        guard zoneSizes != nil else {
            throw ValidationError("--sizes takes sizes of at least 10000, comma-separated, smallest first: \(sizes)")
        }
        guard repetitions >= 1 else { throw ValidationError("--repetitions must be at least 1") }
    }

    func run() throws {
        let settings = destination.settings
        let benchmark = QueryScaleBenchmark(sizes: zoneSizes ?? [], repetitions: repetitions)
        var reports: [QueryScaleReport] = []
        for target in backends?.targets ?? BenchmarkTargets.all {
            reports.append(try target.withSession(settings) { try benchmark.run($0) })
        }
        let table = QueryScaleTable.markdown(reports)
        print(table)
        try FileManager.default.createDirectory(atPath: destination.outputDirectory, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(reports).write(
            to: URL(fileURLWithPath: destination.outputDirectory + "/queries-results.json"))
        try Data(table.utf8).write(to: URL(fileURLWithPath: destination.outputDirectory + "/queries-table.md"))
    }
}
