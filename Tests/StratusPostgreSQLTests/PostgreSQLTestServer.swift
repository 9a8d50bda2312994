import Foundation
import StratusBackend
import StratusConformance
import StratusPostgreSQL

/// The server the tests use: `STRATUS_TEST_POSTGRES_URL` (scripts/test.sh starts a private
/// one and sets it). Without it the tests fail, saying why; they are never skipped.
enum PostgreSQLTestServer {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// The server's URL.
    static func url() throws -> BackendURL {
        guard let text = ProcessInfo.processInfo.environment["STRATUS_TEST_POSTGRES_URL"], !text.isEmpty else {
            throw Unavailable(
                description:
                    "STRATUS_TEST_POSTGRES_URL is not set: run the tests with scripts/test.sh, which starts a private PostgreSQL 15 server, or point the variable at a server (postgresql://user@host:port/db) where the tests may create schemas"
            )
        }
        return try BackendURL(text)
    }

    /// A fixture giving every case a schema of its own.
    static func fixture() throws -> URLBackendFixture {
        try URLBackendFixture(url(), registry: BackendRegistry([PostgreSQLBackendProvider()]))
    }

    /// Fresh storage: a new schema on the server.
    static func makeStorage() throws -> PostgreSQLTemporaryStorage {
        PostgreSQLTemporaryStorage(like: try url())
    }

    /// A configuration for `storage`'s schema.
    static func configuration(_ storage: PostgreSQLTemporaryStorage, pool: Int = 4) throws
        -> PostgreSQLBackend.Configuration
    {
        var configuration = try PostgreSQLBackendProvider().configuration(for: storage.url)
        configuration.poolSize = pool
        return configuration
    }
}
