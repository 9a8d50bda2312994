import Foundation
import StratusBackend
import StratusConformance
import StratusInMemory
import StratusLMDB
import StratusPostgreSQL
import StratusSQLite
import Testing

/// The engine-level conformance cases through remote containers: every case without a
/// ``ConformanceCase/storageAccess`` reason runs against an in-process `stratusd` over each
/// backend, with nothing skipped. One case at a time per backend: a server per case, 63 of
/// them at once beside the rest of a parallel run, is more than two cores serve in time.
@Suite("Conformance through remote containers")
struct RemoteConformanceTests {
    /// The cases that apply to remote containers.
    static let remoteCases = ConformanceSuite.cases.filter { $0.storageAccess == nil }

    @Test("over the in-memory backend", .serialized, arguments: remoteCases)
    func memory(_ c: ConformanceCase) async throws {
        try await c.run(with: RemoteConformanceFixture(base: try Self.fixture("memory:")))
    }

    @Test("over SQLite", .serialized, arguments: remoteCases)
    func sqlite(_ c: ConformanceCase) async throws {
        try await c.run(with: RemoteConformanceFixture(base: try Self.fixture("sqlite:///tmp/conformance.sqlite")))
    }

    @Test("over LMDB", .serialized, arguments: remoteCases)
    func lmdb(_ c: ConformanceCase) async throws {
        try await c.run(with: RemoteConformanceFixture(base: try Self.fixture("lmdb:///tmp/conformance-lmdb")))
    }

    @Test("over PostgreSQL", .serialized, arguments: remoteCases)
    func postgresql(_ c: ConformanceCase) async throws {
        guard let url = ProcessInfo.processInfo.environment["STRATUS_TEST_POSTGRES_URL"], !url.isEmpty else {
            Issue.record(
                "STRATUS_TEST_POSTGRES_URL is not set: run the tests with scripts/test.sh, which starts a private PostgreSQL server"
            )
            return
        }
        try await c.run(with: RemoteConformanceFixture(base: try Self.fixture(url)))
    }

    @Test("every case that does not apply is named with its reason in Docs/RemoteContainers.md")
    func excludedCasesAreDocumented() throws {
        let excluded = ConformanceSuite.cases.filter { $0.storageAccess != nil }
        let engineExcluded = excluded.filter { !$0.id.hasPrefix("kv.") }
        let document = try String(contentsOf: Self.documentURL, encoding: .utf8)
        for c in engineExcluded {
            #expect(document.contains("`\(c.id)`"), "Docs/RemoteContainers.md names \(c.id)")
        }
        #expect(document.contains("`kv.*`"), "Docs/RemoteContainers.md names the key-value cases")
        #expect(Self.remoteCases.count > 60, "most engine cases apply remotely (\(Self.remoteCases.count))")
    }

    static var documentURL: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Docs/RemoteContainers.md")
    }

    /// A fixture making temporary storage like `url`'s.
    static func fixture(_ url: String) throws -> URLBackendFixture {
        try URLBackendFixture(
            BackendURL(url),
            registry: BackendRegistry([
                InMemoryBackendProvider(), SQLiteBackendProvider(), LMDBBackendProvider(), PostgreSQLBackendProvider(),
            ]))
    }
}
