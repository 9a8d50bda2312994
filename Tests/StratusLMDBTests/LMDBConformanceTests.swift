import StratusBackend
import StratusConformance
import StratusLMDB
import Testing

/// Makes LMDB environments for the conformance suite: one temporary directory per storage,
/// through the provider (as `stratus conformance --backend lmdb:///…` does).
struct LMDBFixture: BackendFixture {
    var name: String { "lmdb" }

    func makeStorage() async throws -> any FixtureStorage {
        try await URLBackendFixture(
            BackendURL("lmdb:///tmp/unused"), registry: BackendRegistry([LMDBBackendProvider()])
        )
        .makeStorage()
    }
}

/// The conformance suite on LMDB environments.
@Suite("LMDB conformance")
struct LMDBConformanceTests {
    @Test(arguments: ConformanceSuite.cases)
    func conformance(_ c: ConformanceCase) async throws {
        try await c.run(with: LMDBFixture())
    }

    /// Runs every case in one go, so the suite runs even where the parameterized test has no
    /// arguments.
    @Test func runAll() async throws {
        try await ConformanceSuite.runAll(with: LMDBFixture())
    }
}
