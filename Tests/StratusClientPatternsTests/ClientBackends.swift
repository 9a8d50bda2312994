import Foundation
import Stratus
import StratusBackend
import StratusConfiguration
import StratusPostgreSQL

/// The backends the client patterns run on: each test gets fresh temporary storage of the
/// kind, through the same providers configuration uses. PostgreSQL is the server
/// `STRATUS_TEST_POSTGRES_URL` names (scripts/test.sh starts one); without it the PostgreSQL
/// runs fail, saying why.
enum ClientBackend: String, CaseIterable, CustomStringConvertible, Sendable {
    case memory, sqlite, lmdb, postgresql

    var description: String { rawValue }

    private static let registry = BackendRegistry(StratusBootstrap.builtInProviders + [PostgreSQLBackendProvider()])

    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    private func url() throws -> BackendURL {
        switch self {
        case .memory: return try BackendURL("memory:")
        case .sqlite: return try BackendURL("sqlite:///tmp/client-patterns.sqlite")
        case .lmdb: return try BackendURL("lmdb:///tmp/client-patterns-lmdb")
        case .postgresql:
            guard let text = ProcessInfo.processInfo.environment["STRATUS_TEST_POSTGRES_URL"], !text.isEmpty else {
                throw Unavailable(
                    description:
                        "STRATUS_TEST_POSTGRES_URL is not set: run the tests with scripts/test.sh, which starts a private PostgreSQL server"
                )
            }
            return try BackendURL(text)
        }
    }

    /// Runs `body` with a container over fresh storage of this kind, then removes the storage.
    func withContainer<T>(_ body: (CKContainer) async throws -> T) async throws -> T {
        let storage = try Self.registry.makeTemporaryStorage(like: url())
        do {
            let result = try await body(CKContainer(identifier: "iCloud.client-patterns", backend: storage.open()))
            try storage.destroy()
            return result
        } catch {
            try? storage.destroy()
            throw error
        }
    }
}
