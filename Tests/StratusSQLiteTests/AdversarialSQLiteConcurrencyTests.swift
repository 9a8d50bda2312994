import Foundation
import Stratus
import StratusBackend
import StratusSQLite
import StratusTestSupport
import Testing

/// Several writers on one zone through two `SQLiteBackend` handles on one file, with a follower
/// syncing while they write: every acknowledged write is stored, listed by change fetches
/// exactly once, and seen by the follower; no increment of a shared counter is lost.
@Suite struct AdversarialSQLiteConcurrencyTests {
    @Test func concurrentWritersThroughTwoHandlesOnOneFile() async throws {
        let storage = try SQLiteFixtureStorage()
        defer { try? storage.destroy() }
        let first = try storage.openSQLite()
        defer { try? first.close() }
        let second = try storage.openSQLite()
        defer { try? second.close() }
        let report = try await AdversarialConcurrency.run(first: first, second: second)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.acknowledgedRecords == 240)
        #expect(report.acknowledgedIncrements == 90)
        print("AdversarialSQLiteConcurrencyTests: \(report)")
    }
}
