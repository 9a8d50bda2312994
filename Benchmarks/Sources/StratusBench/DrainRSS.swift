import ArgumentParser
import Foundation
import Stratus

/// The child side of the peak-memory benchmark: `stratus-bench drain-rss <backend> <records>
/// [--store PATH --zone NAME]`.
///
/// With `--store`, it opens the parent's store and drains the zone `NAME`; without, it builds
/// a zone of `records` records in a new store first (PostgreSQL: a database of its own on the
/// server of `STRATUS_BENCH_POSTGRES_URL`, which the parent sets to its own server). Either way it then resets its peak
/// resident size, drains the zone through `CKFetchRecordZoneChangesOperation`, and prints one
/// JSON ``DrainRSSResult`` on standard output.
struct DrainRSSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drain-rss",
        abstract: "Peak memory of one drain, in a process of its own (run by the benchmark itself).",
        discussion: """
            Drains the zone --zone of the store --store (both, or neither: then it builds a zone of \
            <records> records in a new store first), after resetting the peak resident size, and prints \
            one JSON line: the resident size before, the peak, the file-backed size after.
            """)

    @Argument(help: "The backend.")
    var backend: BackendName

    @Argument(help: "How many records the zone holds.")
    var records: Int

    @Option(help: ArgumentHelp("The parent's store (a path or a URL).", valueName: "path"))
    var store: String?

    @Option(help: ArgumentHelp("The zone of --store to drain.", valueName: "name"))
    var zone: String?

    func validate() throws {
        guard records > 0 else { throw ValidationError("<records> must be positive") }
        guard (store == nil) == (zone == nil) else { throw ValidationError("give --store and --zone together") }
    }

    func run() throws {
        try DrainRSSChild.run(backend.target, records: records, store: store, zone: zone)
    }
}

/// The child's work.
enum DrainRSSChild {
    /// Drains `zone` of `store`, or a zone of `records` records it builds when `store` is `nil`.
    static func run(_ target: any BenchmarkTarget, records: Int, store path: String?, zone: String?) throws {
        if let path, let zone {
            let store = BenchmarkStore(backend: try target.openStore(at: path), location: path)
            defer { try? store.backend.close() }
            try measure(records, zone: CKRecordZone.ID(zoneName: zone), of: store, build: false)
            return
        }
        // The zone is built here, in a new store (in memory, or a server's: the parent passes
        // what its session set up in the environment).
        try target.withSession(TargetSettings.fromEnvironment()) { target in
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
                "stratus-bench-rss-\(UUID().uuidString)"
            ).path
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let store = try target.makeStore(in: scratch)
            defer { try? store.backend.close() }
            try measure(records, zone: CKRecordZone.ID(zoneName: "rss"), of: store, build: true)
        }
    }

    /// Builds the zone when `build` is set, then drains it and prints the result.
    private static func measure(_ records: Int, zone zoneID: CKRecordZone.ID, of store: BenchmarkStore, build: Bool)
        throws
    {
        let workload = Workload(store: store)
        if build {
            _ = try workload.makeZone(zoneID.zoneName)
            try workload.save(
                0..<records, type: Workload.itemType, into: zoneID, batchSize: 400, rankModulus: records)
        }

        ProcStatus.releaseFreeMemory()
        let before = ProcStatus.residentMiB
        let reset = ProcStatus.resetPeak()
        var delivered = 0
        let seconds = try Timing.seconds { delivered = try workload.fetchChanges(zoneID, since: nil).records }
        let peak = ProcStatus.peakMiB
        let fileBacked = ProcStatus.fileBackedMiB
        guard delivered == records else {
            throw BenchmarkFailure("drain-rss: delivered \(delivered) of \(records) records")
        }
        let result = DrainRSSResult(
            records: records, rssBeforeMiB: before, peakMiB: peak, growthMiB: peak - before,
            fileBackedMiBAfter: fileBacked, drainSeconds: seconds,
            peakWasReset: reset, builtInChild: build)
        FileHandle.standardOutput.write(try JSONEncoder().encode(result) + Data("\n".utf8))
    }
}

/// The parent side: launches ``DrainRSSChild`` as a separate process and reads its result,
/// so that the measured peak is the drain's alone, not this process's history.
struct DrainRSSParent {
    /// This program.
    let executable: String
    /// The backend under test.
    let target: any BenchmarkTarget

    /// Peak memory draining a zone of `records` records: the parent's zone of that size when
    /// the store can be opened from another process, else a zone the child builds.
    func measure(_ records: Int, in store: BenchmarkStore, sizes: Sizes) throws -> DrainRSSResult {
        var arguments = ["drain-rss", target.name, String(records)]
        if let location = store.location, let zone = BackendRun.zoneName(holding: records, sizes: sizes) {
            arguments += ["--store", location, "--zone", zone]
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(
            target.childEnvironment, uniquingKeysWith: { _, session in session })
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure("drain-rss child exited with status \(process.terminationStatus)")
        }
        return try JSONDecoder().decode(DrainRSSResult.self, from: data)
    }
}
