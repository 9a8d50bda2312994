import Foundation
import Stratus
import StratusLMDB
import StratusTestSupport
import Synchronization
import Testing

/// Incremental sync of one LMDB environment written by two other processes: each runs the
/// writer of `ConcurrentSyncScenario` (`StratusTestProbe sync-writer`: seeded random creates,
/// modifications and deletions through `CKModifyRecordsOperation`) into the same two zones,
/// under names of its own, while this process follows both zones with
/// `CKFetchRecordZoneChangesOperation` in batches of 7, following change tokens. When both
/// writers have exited, the follower syncs once more; its mirror must equal the store exactly
/// (every record's change tag and fields), and the store what the writers last saved.
@Suite("LMDB multi-process sync")
struct LMDBMultiProcessSyncTests {
    /// The scenario's seed: `STRATUS_SYNC_SEED` if set (to replay a failure), else fixed.
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["STRATUS_SYNC_SEED"].flatMap { UInt64($0) } ?? 0x14DB_5117E
    }

    @Test func followerOfTwoWriterProcessesEndsEqualToTheStore() async throws {
        let seed = Self.seed
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let backend = try storage.open()
        defer { try? backend.close() }
        let configuration = ConcurrentSyncScenario.Configuration(seed: seed)
        let database = CKContainer(identifier: configuration.containerIdentifier, backend: backend)
            .privateCloudDatabase
        for zoneName in configuration.zoneNames { _ = try await database.save(CKRecordZone(zoneName: zoneName)) }

        let operations = 1_500
        let reportFiles = (0..<2).map { storage.path + "/writer\($0).json" }
        let probes = try (0..<2).map { i in
            try TestProbe.launch([
                "sync-writer", storage.url(), String(seed &+ UInt64(i + 1)), "w\(i)-", String(operations),
                reportFiles[i],
            ])
        }
        let writersDone = Flag()
        async let following = ConcurrentSyncScenario.follow(configuration, database: database) { writersDone.isSet }
        var outcomes: [TestProbe.Outcome] = []
        for probe in probes { outcomes.append(await probe.finish()) }
        writersDone.set()
        let follower = await following

        var writers: [ConcurrentSyncScenario.WriterReport] = []
        for (i, outcome) in outcomes.enumerated() {
            #expect(outcome.status == 0, "writer \(i) failed with status \(outcome.status): \(outcome.errorOutput)")
            let data = try Data(contentsOf: URL(fileURLWithPath: reportFiles[i]))
            let report = try JSONDecoder().decode(ConcurrentSyncScenario.WriterReport.self, from: data)
            #expect(report.problems.isEmpty, "writer \(i): \(report.problems)")
            #expect(report.creates + report.modifications + report.deletions == operations)
            writers.append(report)
        }
        #expect(follower.problems.isEmpty, "\(follower.problems)")
        let saved = writers.map(\.records)
        let compared = await onThread {
            ConcurrentSyncScenario.compare(configuration, store: database, mirrors: follower.mirrors, saved: saved)
        }
        #expect(compared.problems.isEmpty, "seed \(seed): \(compared.problems)")
        // Both writers' records are in the zones, and the follower saw changes while they wrote.
        let names = follower.mirrors.values.flatMap(\.keys)
        #expect(names.contains { $0.hasPrefix("w0-") } && names.contains { $0.hasPrefix("w1-") })
        #expect(compared.records == writers.map { $0.records.values.map(\.count).reduce(0, +) }.reduce(0, +))
        #expect(follower.fetchesDuringWrites > 0 && follower.changesApplied > 0)
        print(
            "LMDBMultiProcessSyncTests (seed \(seed)): writers \(writers.map { "\($0.batches) batches in \(String(format: "%.2f", $0.seconds)) s" }), "
                + "follower \(follower.fetchesDuringWrites) fetches during writes + \(follower.finalFetches) final, "
                + "\(follower.changesApplied) changes and \(follower.deletionsApplied) deletions applied, "
                + "\(compared.records) records at the end")
    }

    /// Runs a blocking `body` on a thread of its own (not Swift concurrency's pool).
    private func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in Thread { continuation.resume(returning: body()) }.start() }
    }
}

/// A flag set once, read from any thread.
private final class Flag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
