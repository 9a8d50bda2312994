import Foundation
import Stratus

/// The child side of the peak-memory benchmark: `stratus-bench drain-rss <backend> <records>
/// [--store PATH --zone NAME]`.
///
/// With `--store`, it opens the parent's store and drains the zone `NAME`; without, it builds
/// a zone of `records` records in a new store first. Either way it then resets its peak
/// resident size, drains the zone through `CKFetchRecordZoneChangesOperation`, and prints one
/// JSON ``DrainRSSResult`` on standard output.
enum DrainRSSChild {
    /// Runs the child command with the arguments after `drain-rss`.
    static func main(_ arguments: [String]) throws {
        guard arguments.count >= 2, let target = BenchmarkTargets.named(arguments[0]), let records = Int(arguments[1])
        else {
            throw BenchmarkFailure("usage: stratus-bench drain-rss <backend> <records> [--store PATH --zone NAME]")
        }
        let options = Dictionary(
            stride(from: 2, to: arguments.count - 1, by: 2).map { (arguments[$0], arguments[$0 + 1]) },
            uniquingKeysWith: { _, last in last })
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stratus-bench-rss-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: scratch) }

        let store: BenchmarkStore
        let zoneID: CKRecordZone.ID
        if let path = options["--store"], let zone = options["--zone"] {
            store = BenchmarkStore(backend: try target.openStore(at: path), location: path)
            zoneID = CKRecordZone.ID(zoneName: zone)
        } else {
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            store = try target.makeStore(in: scratch)
            zoneID = CKRecordZone.ID(zoneName: "rss")
        }
        defer { try? store.backend.close() }
        let workload = Workload(store: store)
        let built = options["--store"] == nil
        if built {
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
        guard delivered == records else {
            throw BenchmarkFailure("drain-rss: delivered \(delivered) of \(records) records")
        }
        let result = DrainRSSResult(
            records: records, rssBeforeMiB: before, peakMiB: peak, growthMiB: peak - before, drainSeconds: seconds,
            peakWasReset: reset, builtInChild: built)
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
