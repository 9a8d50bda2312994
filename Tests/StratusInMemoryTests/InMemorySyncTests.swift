import Foundation
import StratusInMemory
import StratusTestSupport
import Testing

/// Incremental sync while another client writes, on one in-memory store through two handles
/// (`ConcurrentSyncScenario`; `SQLiteSyncTests` runs the same scenario on a SQLite file).
@Suite("In-memory sync under concurrent writes")
struct InMemorySyncTests {
    /// The scenario's seed: `STRATUS_SYNC_SEED` if set (to replay a failure), else fixed.
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["STRATUS_SYNC_SEED"].flatMap { UInt64($0) } ?? 0x5EED_5117E
    }

    @Test func followerWithSmallBatchesEndsEqualToTheStore() async throws {
        let store = InMemoryStore()
        let writer = InMemoryBackend(store: store)
        defer { writer.close() }
        let follower = InMemoryBackend(store: store)
        defer { follower.close() }

        let report = await ConcurrentSyncScenario.run(.init(seed: Self.seed), writer: writer, follower: follower)
        print("InMemorySyncTests (seed \(Self.seed)): \(report)")
        #expect(report.problems.isEmpty, "seed \(Self.seed): \(report)")
        #expect(report.creates + report.modifications + report.deletions == 3000)
        #expect(report.finalRecords > 0)
        #expect(report.changesApplied > 0)
    }
}
