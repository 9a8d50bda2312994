import StratusConformance
import Testing

/// The conformance suite on PostgreSQL: every case in a schema of its own.
@Suite("PostgreSQL conformance")
struct PostgreSQLConformanceTests {
    @Test(arguments: ConformanceSuite.cases)
    func conformance(_ c: ConformanceCase) async throws {
        try await c.run(with: PostgreSQLTestServer.fixture())
    }
}
