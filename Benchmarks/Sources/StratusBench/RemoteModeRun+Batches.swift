import Stratus

/// The batch reads of a mode's run: lookups by ID and sorted query pages of a batch's size.
extension RemoteModeRun {
    /// Fetches every saved record of `zoneID` by ID, `batchSize` per `CKDatabase.records(for:)`,
    /// `repetitions` times, reading every field.
    func lookups(_ zoneID: CKRecordZone.ID) throws -> RemotePhase {
        let ids = (0..<sizes.savedRecords).map { CKRecord.ID(recordName: RecordFactory.name($0), zoneID: zoneID) }
        return try timedRuns("lookup") {
            var fetched = 0
            for start in stride(from: 0, to: ids.count, by: sizes.batchSize) {
                fetched += try workload.lookup(Array(ids[start..<min(start + sizes.batchSize, ids.count)])).records
            }
            return fetched
        }
    }

    /// Walks the sorted query of `zoneID` through every cursor, `batchSize` records per page,
    /// `repetitions` times.
    func queryPages(_ zoneID: CKRecordZone.ID) throws -> RemotePhase {
        try timedRuns("query pages") { try workload.queryAll(zoneID: zoneID, limit: sizes.batchSize) }
    }

    /// `repetitions` runs of `body`, each of which must deliver every saved record, with the
    /// server's CPU over each.
    func timedRuns(_ name: String, _ body: () throws -> Int) throws -> RemotePhase {
        var runs: [(wall: Double, cpu: Double, server: Double?)] = []
        for _ in 0..<max(1, sizes.repetitions) {
            let serverBefore = serverCPU?()
            var delivered = 0
            let sample = try Timing.sample { delivered = try body() }
            guard delivered == sizes.savedRecords else {
                throw BenchmarkFailure("\(mode) \(name) delivered \(delivered) of \(sizes.savedRecords) records")
            }
            let server = serverBefore.flatMap { before in serverCPU.map { $0() - before } }
            Log.detail("\(mode) \(name): \(Format.fixed(sample.wall, 2)) s")
            runs.append((sample.wall, sample.cpu, server))
        }
        return RemotePhase(records: sizes.savedRecords, runs: runs)
    }
}
