import StratusConformance
import Testing

/// The conformance suite on SQLite file stores.
@Suite("SQLite conformance")
struct SQLiteConformanceTests {
    @Test(arguments: ConformanceSuite.cases)
    func conformance(_ c: ConformanceCase) async throws {
        try await c.run(with: SQLiteFixture())
    }

    /// Runs every case in one go, so the suite runs (and an empty suite is visible) even
    /// where the parameterized test has no arguments.
    @Test func runAll() async throws {
        try await ConformanceSuite.runAll(with: SQLiteFixture())
    }
}
