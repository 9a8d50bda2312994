import Foundation
import Stratus

/// The repeated runs of a backend run that write: the SPI replay and the saves. Each repetition
/// but the one that stays gets a fresh store, so that every sample starts from the same state.
extension BackendRun {
    /// Runs `body` on a new store in the subdirectory `name` of `directory`, then closes the
    /// store and removes the subdirectory.
    func withScratchStore<T>(
        in directory: String, named name: String, _ body: (BenchmarkStore) throws -> T
    ) throws -> T {
        let scratch = directory + "/" + name
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let store = try target.makeStore(in: scratch)
        defer { try? store.backend.close() }
        return try body(store)
    }

    /// The engine's footprint replayed through the SPI `repetitions` times, each on a new
    /// store: the median of each timing.
    func replayFootprint(in directory: String) throws -> SPIReplay.Result {
        let replay = SPIReplay(pattern: .init(footprint: footprint))
        let runs = try (0..<max(1, sizes.repetitions)).map { run in
            try withScratchStore(in: directory, named: "spi-replay-\(run)") { store in
                try replay.run(records: sizes.savedRecords, batchSize: sizes.batchSize, on: store.backend)
            }
        }
        return SPIReplay.Result.median(of: runs)
    }

    /// Saves the benchmark's records `repetitions` times: into new throwaway stores first, and
    /// last into `items` of `workload`, which the later benchmarks read. Before each run, a raw
    /// baseline runs too, for a ratio whose two halves see the machine in the same state.
    /// Reports the run of median time.
    func saveItems(
        into items: CKRecordZone.ID, of workload: Workload, raw: RawBaseline, in directory: String
    ) throws -> SaveResult {
        func save(into zoneID: CKRecordZone.ID, of workload: Workload) throws -> Workload.SaveTiming {
            try workload.save(
                0..<sizes.savedRecords, type: Workload.itemType, into: zoneID, batchSize: sizes.batchSize,
                rankModulus: sizes.savedRecords)
        }
        var timings: [Workload.SaveTiming] = []
        var pairedRaw: [Double] = []
        func rawInserts() throws -> Double {
            try target.rawBaseline(rows: sizes.rawRows, valueBytes: sizes.valueBytes, in: directory).insertsPerSecond
        }
        for run in 1..<max(1, sizes.repetitions) {
            pairedRaw.append(try rawInserts())
            timings.append(
                try withScratchStore(in: directory, named: "save-\(run)") { store in
                    let scratch = Workload(store: store)
                    return try save(into: try scratch.makeZone(BackendRun.itemsZone), of: scratch)
                })
        }
        pairedRaw.append(try rawInserts())
        timings.append(try save(into: items, of: workload))
        let pairedRatios = zip(timings, pairedRaw).map { Double(sizes.savedRecords) / $0.seconds / $1 }
        let median = timings.sorted { $0.seconds < $1.seconds }[timings.count / 2]
        let rate = Double(sizes.savedRecords) / median.seconds
        return SaveResult(
            records: sizes.savedRecords, batchSize: sizes.batchSize, seconds: median.seconds,
            samples: timings.map(\.seconds), buildSeconds: median.buildSeconds, recordsPerSecond: rate,
            ratioToRaw: rate / raw.insertsPerSecond, pairedRawInsertsPerSecond: pairedRaw,
            pairedRatioToRaw: Timing.median(pairedRatios), cpuSeconds: median.cpuSeconds,
            cpuRatioToRaw: (raw.insertCPUSeconds / Double(raw.rows)) / (median.cpuSeconds / Double(sizes.savedRecords)))
    }
}
