import Stratus
import StratusInMemory

/// What the engine asks of a backend per record, counted through a ``CountingBackend`` on a
/// small in-memory store: the storage footprint of a save and of a drain. It does not depend
/// on the backend, and it is what ``SPIReplay`` replays.
struct EngineFootprint: Codable {
    /// Records saved (in batches of `batchSize`) and then drained.
    var records: Int
    /// Records per save operation.
    var batchSize: Int
    /// Everything the saves asked.
    var save: CountingBackend.Counts
    /// Everything the drain asked.
    var drain: CountingBackend.Counts

    /// Saves and drains `records` records of the benchmark's shape and counts.
    static func measure(records: Int, batchSize: Int) throws -> EngineFootprint {
        let counting = CountingBackend(InMemoryBackend())
        let workload = Workload(store: BenchmarkStore(backend: counting, location: nil))
        let zoneID = try workload.makeZone("footprint")
        counting.reset()
        try workload.save(
            0..<records, type: Workload.itemType, into: zoneID, batchSize: batchSize, rankModulus: records)
        let save = counting.counts
        counting.reset()
        let drained = try workload.fetchChanges(zoneID, since: nil).records
        guard drained == records else { throw BenchmarkFailure("footprint: drained \(drained) of \(records)") }
        return EngineFootprint(records: records, batchSize: batchSize, save: save, drain: counting.counts)
    }

    /// `count` per record, rounded to two decimals.
    func perRecord(_ count: Int) -> Double {
        (Double(count) / Double(records) * 100).rounded() / 100
    }

    /// Average key size of the saves' writes, in bytes.
    var keyBytesPerSet: Int { save.sets == 0 ? 0 : save.keyBytesWritten / save.sets }

    /// Value bytes written per saved record.
    var valueBytesPerRecord: Int { save.valueBytesWritten / max(1, records) }

    /// One line for people: what one saved and one drained record cost in backend calls.
    var summary: String {
        let batches = Double(records) / Double(batchSize)
        func perBatch(_ count: Int) -> String { Format.fixed(Double(count) / batches, 1) }
        return
            "save: \(perRecord(save.gets)) gets (\(perRecord(save.getMisses)) misses; "
            + "\(perBatch(save.getManyCalls)) getMany calls per \(batchSize) records), \(perRecord(save.sets)) sets, "
            + "\(perRecord(save.clears)) clears, \(valueBytesPerRecord) value bytes, \(keyBytesPerSet)-byte keys per "
            + "record; drain: \(perRecord(drain.gets)) gets and \(perRecord(drain.scannedPairs)) scanned pairs per "
            + "record, \(perBatch(drain.scans)) scans and \(perBatch(drain.reads)) read transactions per \(batchSize) records"
    }
}
