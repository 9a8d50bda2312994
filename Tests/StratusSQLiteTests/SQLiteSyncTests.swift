import Foundation
import StratusSQLite
import StratusTestSupport
import Testing

/// Incremental sync while another client writes, on one SQLite file through two handles
/// (`ConcurrentSyncScenario`; `InMemorySyncTests` runs the same scenario in memory).
@Suite("SQLite sync under concurrent writes")
struct SQLiteSyncTests {
    /// The scenario's seed: `STRATUS_SYNC_SEED` if set (to replay a failure), else fixed.
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["STRATUS_SYNC_SEED"].flatMap { UInt64($0) } ?? 0x5EED_5117E
    }

    @Test func followerWithSmallBatchesEndsEqualToTheStore() async throws {
        let storage = try SQLiteFixtureStorage()
        defer { try? storage.destroy() }
        let writer = try storage.openSQLite()
        defer { try? writer.close() }
        let follower = try storage.openSQLite()
        defer { try? follower.close() }

        let report = await ConcurrentSyncScenario.run(.init(seed: Self.seed), writer: writer, follower: follower)
        print("SQLiteSyncTests (seed \(Self.seed)): \(report)")
        #expect(report.problems.isEmpty, "seed \(Self.seed): \(report)")
        #expect(report.creates + report.modifications + report.deletions == 3000)
        #expect(report.finalRecords > 0)
        #expect(report.changesApplied > 0)
    }
}
