import Foundation
import StratusSQLite
import StratusTestSupport
import Testing

/// A writer process killed with `SIGKILL` at random moments, again and again, on one SQLite
/// file (default durability, `synchronous=FULL`): after every kill the store must hold every
/// acknowledged batch, no part of an atomic batch without the rest, and every change token
/// the writer was given must still resume without gaps (`CrashRecoveryScenario`, which
/// `LMDBCrashTests` runs on LMDB).
@Suite("SQLite crash recovery")
struct SQLiteCrashTests {
    /// The test's seed: `STRATUS_CRASH_SEED` if set (to replay a failure), else fixed. It
    /// chooses the kill points and the writer's seeds.
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["STRATUS_CRASH_SEED"].flatMap { UInt64($0) } ?? 0xC4A5_11ED
    }

    @Test func killedWriterKeepsAcknowledgedBatchesAtomicityAndTokens() async throws {
        let seed = Self.seed
        let storage = try SQLiteFixtureStorage()
        defer { try? storage.destroy() }
        let configuration = CrashRecoveryScenario.Configuration(seed: seed, store: storage.path)
        let report = try await CrashRecoveryScenario.run(configuration) { try storage.openSQLite() }
        for problem in report.problems { Issue.record("seed \(seed): \(problem)") }
        print("SQLiteCrashTests (seed \(seed)): \(report)")
        #expect(report.batchesAcknowledged >= configuration.rounds)
    }
}
