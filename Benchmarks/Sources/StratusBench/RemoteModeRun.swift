import Foundation
import Stratus

/// The embedded benchmark's save, drain, query-paging and incremental-sync measurements, and
/// lookups and query pages of a batch's size, on one workload: an embedded container over a
/// store, or a remote container on a `stratusd`. Both modes run exactly this code, so their
/// figures compare.
struct RemoteModeRun {
    /// `embedded` or `remote`.
    let mode: String
    /// The container the operations run in.
    let workload: Workload
    /// The sizes to use.
    let sizes: Sizes
    /// The server's CPU seconds so far, for a remote run; `nil` for an embedded one.
    let serverCPU: (() -> Double)?

    /// Runs everything: saves, drains, paging of the saved zone, lookups and query pages of a
    /// batch's size, then incremental sync.
    func run() throws -> RemoteModeResult {
        let clock = ContinuousClock()
        let start = clock.now
        let items = try workload.makeZone(BackendRun.itemsZone)
        Log.step(
            "\(mode): saving \(sizes.savedRecords) records, \(sizes.batchSize) per operation × \(sizes.repetitions)")
        let save = try saveItems(into: items)
        Log.step("\(mode): draining \(sizes.savedRecords) records × \(sizes.repetitions)")
        let drain = try drain(items)
        Log.step("\(mode): paging the sorted query to page \(sizes.lastPage)")
        let paging = try QueryPagingBenchmark(workload: workload, zoneID: items, sizes: sizes).run()
        Log.step("\(mode): fetching \(sizes.savedRecords) records by ID, \(sizes.batchSize) per call")
        let lookup = try lookups(items)
        Log.step("\(mode): querying \(sizes.savedRecords) records in pages of \(sizes.batchSize)")
        let pages = try queryPages(items)
        Log.step("\(mode): incremental sync at history sizes \(sizes.historySizes)")
        let sync = try IncrementalSyncBenchmark(workload: workload, sizes: sizes).run()
        return RemoteModeResult(
            mode: mode, save: save, drain: drain, lookup: lookup, queryPages: pages, incrementalSync: sync,
            paging: paging,
            totalSeconds: (clock.now - start).seconds)
    }

    /// Saves the records `repetitions` times, each into a zone of its own, the last into
    /// `items` (which the later measurements read). Reports the median run.
    private func saveItems(into items: CKRecordZone.ID) throws -> RemotePhase {
        var runs: [(wall: Double, cpu: Double, server: Double?)] = []
        let count = max(1, sizes.repetitions)
        for run in 1...count {
            let zoneID = run == count ? items : try workload.makeZone("\(BackendRun.itemsZone)-\(run)")
            let serverBefore = serverCPU?()
            let timing = try workload.save(
                0..<sizes.savedRecords, type: Workload.itemType, into: zoneID, batchSize: sizes.batchSize,
                rankModulus: sizes.savedRecords)
            let server = serverBefore.flatMap { before in serverCPU.map { $0() - before } }
            Log.detail("\(mode) save: \(Format.fixed(timing.seconds, 2)) s")
            runs.append((timing.seconds, timing.cpuSeconds, server))
        }
        return RemotePhase(records: sizes.savedRecords, runs: runs)
    }

    /// Drains `zoneID` from a nil token `repetitions` times, reading every field.
    private func drain(_ zoneID: CKRecordZone.ID) throws -> RemotePhase {
        try timedRuns("drain") { try workload.fetchChanges(zoneID, since: nil).records }
    }
}
