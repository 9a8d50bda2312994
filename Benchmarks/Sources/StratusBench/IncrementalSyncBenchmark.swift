import Stratus

/// Incremental sync: in zones whose histories hold different numbers of changes, fetch the
/// last `incrementalChanges` changes after a token taken just before them.
struct IncrementalSyncBenchmark {
    /// Where the zones are built.
    let workload: Workload
    /// The sizes to use.
    let sizes: Sizes

    /// One prepared zone: its ID, the token before its last changes, and the set-up drain's time.
    private struct Prepared {
        var size: Int
        var zoneID: CKRecordZone.ID
        var token: CKServerChangeToken
        var tokenDrainSeconds: Double
    }

    /// Builds every zone, then times the fetches alternately across zones, so that a change
    /// of machine load affects every size alike.
    func run() throws -> IncrementalSyncResult {
        let prepared = try sizes.historySizes.map(prepare)
        var samples = Array(repeating: [Timing.Sample](), count: prepared.count)
        for _ in 0..<sizes.syncRepetitions {
            for (index, zone) in prepared.enumerated() {
                var fetched = 0
                samples[index].append(
                    try Timing.sample { fetched = try workload.fetchChanges(zone.zoneID, since: zone.token).records })
                guard fetched == sizes.incrementalChanges else {
                    throw BenchmarkFailure("incremental sync fetched \(fetched) of \(sizes.incrementalChanges) changes")
                }
            }
        }
        let points = zip(prepared, samples).map { zone, samples in
            SyncPoint(
                historySize: zone.size, changesFetched: sizes.incrementalChanges,
                seconds: Timing.median(samples.map(\.wall)), samples: samples.map(\.wall),
                cpuSeconds: Timing.median(samples.map(\.cpu)), tokenDrainSeconds: zone.tokenDrainSeconds)
        }
        let ratio = (points.last?.seconds ?? 0) / (points.first?.seconds ?? 1)
        let cpuRatio = (points.last?.cpuSeconds ?? 0) / (points.first?.cpuSeconds ?? 1)
        return IncrementalSyncResult(points: points, ratio: ratio, cpuRatio: cpuRatio)
    }

    /// Saves `size - incrementalChanges` records, drains them to a token, then saves the last
    /// `incrementalChanges` records after it.
    private func prepare(_ size: Int) throws -> Prepared {
        let zoneID = try workload.makeZone(BackendRun.historyZone(size))
        let head = size - sizes.incrementalChanges
        Log.detail("history \(size): saving \(head) records")
        try workload.save(
            0..<head, type: Workload.eventType, into: zoneID, batchSize: sizes.batchSize, rankModulus: size)
        var token: CKServerChangeToken?
        let drainSeconds = try Timing.seconds {
            token = try workload.fetchChanges(zoneID, since: nil, desiredKeys: []).token
        }
        guard let token else { throw BenchmarkFailure("history \(size): no token") }
        try workload.save(
            head..<size, type: Workload.eventType, into: zoneID, batchSize: sizes.batchSize, rankModulus: size)
        return Prepared(size: size, zoneID: zoneID, token: token, tokenDrainSeconds: drainSeconds)
    }
}
