import StratusBackend

/// A storage pattern replayed straight through the SPI (``DatabaseBackend``), without the
/// CloudKit layer: what saves and drains would cost if the engine's own work (validation,
/// encoding, `CKRecord`s, operations) were free. Replaying the engine's measured footprint
/// splits a gap to the raw baseline into the key layout's share and the CloudKit layer's;
/// replaying variants (`stratus-bench replay`) prices a layout change before anyone makes it.
///
/// Per saved record: `misses` point reads of absent keys (the existence probes, read with one
/// `getMany` call per batch, as the engine does), then `sets` writes — the record's key, its
/// change-log entry (one of the two holds the record), and empty index entries — in write transactions of
/// `batchSize` records. Per drained record: one change-log entry from a range scan and, unless
/// the change log carries the record itself, one point read of the record, `batchSize` records
/// per read transaction. Per-batch rows (zone, meta: a handful of calls per batch) are left out.
struct SPIReplay {
    /// What one record costs in backend calls.
    struct Pattern: Codable, Sendable {
        /// Point reads of absent keys per saved record.
        var misses: Int
        /// Keys written per saved record (at least 2: the record and its change entry).
        var sets: Int
        /// Average key size, in bytes.
        var keyBytes: Int
        /// Size of the record's value, in bytes.
        var valueBytes: Int
        /// Whether the change-log entry carries the record's value (a drain is then one range
        /// scan, with no point reads) instead of the record's key holding it.
        var recordInChangeLog: Bool

        /// The pattern of the engine as measured by `footprint`. A drain without point reads
        /// means the change log carries the records (store format 2, decision 0008); the
        /// record key then holds a small pointer, which this replay writes as 8 bytes.
        init(footprint: EngineFootprint) {
            misses = Int(footprint.perRecord(footprint.save.getMisses).rounded())
            sets = Int(footprint.perRecord(footprint.save.sets).rounded())
            keyBytes = footprint.keyBytesPerSet
            valueBytes = footprint.valueBytesPerRecord
            recordInChangeLog = footprint.perRecord(footprint.drain.gets) < 0.5
        }
    }

    /// The pattern to replay.
    let pattern: Pattern

    /// The timings of one replay.
    struct Result: Codable {
        /// Records saved and drained.
        var records: Int
        /// Seconds of the saves.
        var saveSeconds: Double
        /// Seconds of the drain.
        var drainSeconds: Double
        /// Records saved per second.
        var savesPerSecond: Double
        /// Records drained per second.
        var drainsPerSecond: Double
        /// Process CPU seconds of the saves (steadier than wall time on a loaded machine).
        var saveCPUSeconds: Double
        /// Process CPU seconds of the drain.
        var drainCPUSeconds: Double

        /// The median of each timing of `runs` (of the same number of records).
        static func median(of runs: [Result]) -> Result {
            let records = runs.first?.records ?? 0
            let save = Timing.median(runs.map(\.saveSeconds))
            let drain = Timing.median(runs.map(\.drainSeconds))
            return Result(
                records: records, saveSeconds: save, drainSeconds: drain, savesPerSecond: Double(records) / save,
                drainsPerSecond: Double(records) / drain, saveCPUSeconds: Timing.median(runs.map(\.saveCPUSeconds)),
                drainCPUSeconds: Timing.median(runs.map(\.drainCPUSeconds)))
        }
    }

    /// Replays `records` saves and a drain of them on `backend`, an empty store.
    func run(records: Int, batchSize: Int, on backend: any DatabaseBackend) throws -> Result {
        let saving = try Timing.sample { try save(records: records, batchSize: batchSize, on: backend) }
        let draining = try Timing.sample {
            let drained = try drain(batchSize: batchSize, on: backend)
            guard drained == records else { throw BenchmarkFailure("SPI replay drained \(drained) of \(records)") }
        }
        return Result(
            records: records, saveSeconds: saving.wall, drainSeconds: draining.wall,
            savesPerSecond: Double(records) / saving.wall, drainsPerSecond: Double(records) / draining.wall,
            saveCPUSeconds: saving.cpu, drainCPUSeconds: draining.cpu)
    }

    private var filler: [UInt8] { [UInt8](repeating: 0x5A, count: max(0, pattern.keyBytes - 11)) }

    /// The key of record `index` in key space `space`: about `keyBytes` bytes, ending in the
    /// record's name, so records go in name order as the benchmark saves them.
    private func key(_ space: UInt8, _ index: Int) -> [UInt8] {
        [space] + filler + Array(RecordFactory.name(index).utf8)
    }

    /// The change-log key of position `index`.
    private func changeKey(_ index: Int) -> [UInt8] {
        var bytes = [0x40] + filler
        withUnsafeBytes(of: UInt64(index).bigEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }

    private func save(records: Int, batchSize: Int, on backend: any DatabaseBackend) throws {
        let value = [UInt8](repeating: 0xA5, count: pattern.valueBytes)
        let pointer = [UInt8](repeating: 0x01, count: 8)
        for start in stride(from: 0, to: records, by: batchSize) {
            try backend.write { txn in
                let batch = start..<min(start + batchSize, records)
                // The engine probes every record of a modify with one `getMany` call.
                let probes = batch.flatMap { index in (0..<pattern.misses).map { key(0x30 + UInt8($0), index) } }
                if !probes.isEmpty, try txn.getMany(probes).contains(where: { $0 != nil }) {
                    throw BenchmarkFailure("SPI replay: a key that should be absent exists")
                }
                for index in batch {
                    try txn.set(key(0x20, index), pattern.recordInChangeLog ? pointer : value)
                    try txn.set(changeKey(index), pattern.recordInChangeLog ? value : pointer)
                    for extra in 0..<max(0, pattern.sets - 2) { try txn.set(key(0x22 + UInt8(extra), index), []) }
                }
            }
        }
    }

    /// Drains the change log the way the engine does; returns the records delivered.
    private func drain(batchSize: Int, on backend: any DatabaseBackend) throws -> Int {
        let end = KeyRange.successor(ofPrefix: [0x40] + filler)
        var next = changeKey(0)
        var drained = 0
        while true {
            let count = try backend.read { txn in
                let entries = try txn.scan(KeyRange(from: next, to: end), limit: batchSize + 1).prefix(batchSize)
                for (offset, entry) in entries.enumerated() {
                    let value = pattern.recordInChangeLog ? entry.value : try txn.get(key(0x20, drained + offset))
                    guard value?.count == pattern.valueBytes else {
                        throw BenchmarkFailure("SPI replay: record \(drained + offset) is missing")
                    }
                }
                if let last = entries.last { next = last.key + [0] }
                return entries.count
            }
            drained += count
            if count < batchSize { return drained }
        }
    }
}
