import Foundation
import Stratus

/// Every benchmark on one backend, in one process, in the order the results depend on:
/// the raw baseline, saves, the drain and the query of the saved zone, the incremental-sync
/// zones, then the peak-memory children (which may open the zones built here).
struct BackendRun {
    /// The backend under test.
    let target: any BenchmarkTarget
    /// The sizes to use.
    let sizes: Sizes
    /// This program, for the child processes.
    let executable: String
    /// The engine's storage footprint, replayed through the SPI.
    let footprint: EngineFootprint

    /// The zone saved, drained and queried.
    static let itemsZone = "items"

    /// The name of the incremental-sync zone holding `size` changes.
    static func historyZone(_ size: Int) -> String { "history-\(size)" }

    /// Runs everything in a new scratch directory, removed afterwards.
    func run() throws -> BackendReport {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stratus-bench-\(target.name)-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = ContinuousClock()
        let start = clock.now

        Log.step("\(target.name): raw baseline, \(sizes.rawRows) rows × \(sizes.repetitions)")
        let raw = try RawBaseline.median(
            of: (0..<sizes.repetitions).map { _ in
                try target.rawBaseline(rows: sizes.rawRows, valueBytes: sizes.valueBytes, in: directory)
            })

        Log.step("\(target.name): the engine's key pattern through the SPI, \(sizes.savedRecords) records")
        let replay = try replayFootprint(in: directory)

        let store = try target.makeStore(in: directory)
        defer { try? store.backend.close() }
        let workload = Workload(store: store)
        let items = try workload.makeZone(BackendRun.itemsZone)

        Log.step("\(target.name): saving \(sizes.savedRecords) records, \(sizes.batchSize) per operation")
        let save = try saveItems(into: items, of: workload, raw: raw, in: directory)

        Log.step("\(target.name): draining \(sizes.savedRecords) records × \(sizes.repetitions)")
        let drain = try drainSaved(items, workload: workload, raw: raw, in: directory)

        Log.step("\(target.name): paging the sorted query to page \(sizes.lastPage)")
        let paging = try QueryPagingBenchmark(workload: workload, zoneID: items, sizes: sizes).run()

        Log.step("\(target.name): incremental sync at history sizes \(sizes.historySizes)")
        let sync = try IncrementalSyncBenchmark(workload: workload, sizes: sizes).run()

        var rss: [DrainRSSResult] = []
        for size in sizes.rssZoneSizes {
            Log.step("\(target.name): peak memory draining \(size) records in a child process")
            rss.append(
                try DrainRSSParent(executable: executable, target: target).measure(size, in: store, sizes: sizes))
        }
        return BackendReport(
            backend: target.name, label: target.label, raw: raw, spiReplay: replay, save: save, drain: drain,
            incrementalSync: sync, paging: paging, drainRSS: rss, totalSeconds: (clock.now - start).seconds)
    }

    /// Drains the saved zone `repetitions` times, each drain just after a raw baseline run (for
    /// a ratio whose two halves see the machine in the same state).
    private func drainSaved(
        _ zoneID: CKRecordZone.ID, workload: Workload, raw: RawBaseline, in directory: String
    ) throws -> DrainResult {
        var samples: [Timing.Sample] = []
        var pairedRaw: [Double] = []
        for _ in 0..<max(1, sizes.repetitions) {
            pairedRaw.append(
                try target.rawBaseline(rows: sizes.rawRows, valueBytes: sizes.valueBytes, in: directory).readsPerSecond)
            samples.append(
                try Timing.sample {
                    let fetched = try workload.fetchChanges(zoneID, since: nil)
                    guard fetched.records == sizes.savedRecords else {
                        throw BenchmarkFailure("drain delivered \(fetched.records) of \(sizes.savedRecords) records")
                    }
                    Log.detail("drain: \(fetched.records) records, field checksum \(fetched.checksum)")
                })
        }
        let median = Timing.median(samples.map(\.wall))
        let cpu = Timing.median(samples.map(\.cpu))
        let rate = Double(sizes.savedRecords) / median
        return DrainResult(
            records: sizes.savedRecords, seconds: median, samples: samples.map(\.wall), recordsPerSecond: rate,
            ratioToRaw: rate / raw.readsPerSecond, pairedRawReadsPerSecond: pairedRaw,
            pairedRatioToRaw: Timing.median(
                zip(samples, pairedRaw).map { Double(sizes.savedRecords) / $0.wall / $1 }),
            cpuSeconds: cpu,
            cpuRatioToRaw: (raw.readCPUSeconds / Double(raw.rows)) / (cpu / Double(sizes.savedRecords)))
    }

    /// The zone of `size` records this run built, if any: the saved zone or a history zone.
    static func zoneName(holding size: Int, sizes: Sizes) -> String? {
        if size == sizes.savedRecords { return itemsZone }
        if sizes.historySizes.contains(size) { return historyZone(size) }
        return nil
    }
}
