import StratusBackend

/// The engine's storage pattern replayed straight through the SPI (``DatabaseBackend``),
/// without the CloudKit layer: what saves and drains would cost if the engine's own work
/// (validation, encoding, `CKRecord`s, operations) were free. Between the raw baseline and
/// the CloudKit figures, it splits a gap into the key layout's share and the engine's.
///
/// Per saved record it makes the footprint's point reads (all misses: a new record) and
/// writes (one value of the record's size, the rest empty, keys of the footprint's size) in
/// write transactions of `batchSize` records. Per drained record it scans one change entry
/// and reads the record back, `batchSize` records per read transaction. Per-batch rows (zone,
/// meta) are left out: a handful of calls per batch.
struct SPIReplay {
    /// The footprint to replay.
    let footprint: EngineFootprint

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
    }

    /// Replays `records` saves and a drain of them on `backend`, an empty store.
    func run(records: Int, batchSize: Int, on backend: any DatabaseBackend) throws -> Result {
        let misses = max(0, Int(footprint.perRecord(footprint.save.getMisses).rounded()))
        let sets = max(1, Int(footprint.perRecord(footprint.save.sets).rounded()))
        let filler = [UInt8](repeating: 0x5A, count: max(0, footprint.keyBytesPerSet - 11))
        let value = [UInt8](repeating: 0xA5, count: footprint.valueBytesPerRecord)
        func key(_ space: UInt8, _ index: Int) -> [UInt8] {
            [space] + filler + Array(RecordFactory.name(index).utf8)
        }
        func changeKey(_ index: Int) -> [UInt8] {
            var bytes = [0x40] + filler
            withUnsafeBytes(of: UInt64(index).bigEndian) { bytes.append(contentsOf: $0) }
            return bytes
        }

        let saveSeconds = try Timing.seconds {
            for start in stride(from: 0, to: records, by: batchSize) {
                try backend.write { txn in
                    for index in start..<min(start + batchSize, records) {
                        for miss in 0..<misses where try txn.get(key(0x30 + UInt8(miss), index)) != nil {
                            throw BenchmarkFailure("SPI replay: a key that should be missing exists")
                        }
                        try txn.set(key(0x20, index), value)
                        try txn.set(changeKey(index), [])
                        for extra in 2..<max(2, sets) { try txn.set(key(0x20 + UInt8(extra), index), []) }
                    }
                }
            }
        }
        let end = KeyRange.successor(ofPrefix: [0x40] + filler)
        let drainSeconds = try Timing.seconds {
            var next = changeKey(0)
            var drained = 0
            while true {
                let count = try backend.read { txn in
                    let entries = try txn.scan(KeyRange(from: next, to: end), limit: batchSize + 1)
                    for (offset, _) in entries.prefix(batchSize).enumerated() {
                        guard try txn.get(key(0x20, drained + offset)) != nil else {
                            throw BenchmarkFailure("SPI replay: a saved record is missing")
                        }
                    }
                    if let last = entries.prefix(batchSize).last { next = last.key + [0] }
                    return min(entries.count, batchSize)
                }
                drained += count
                if count < batchSize { break }
            }
            guard drained == records else { throw BenchmarkFailure("SPI replay drained \(drained) of \(records)") }
        }
        return Result(
            records: records, saveSeconds: saveSeconds, drainSeconds: drainSeconds,
            savesPerSecond: Double(records) / saveSeconds, drainsPerSecond: Double(records) / drainSeconds)
    }
}
