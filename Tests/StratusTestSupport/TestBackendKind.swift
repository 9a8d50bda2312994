import Foundation
public import StratusBackend
import StratusConfiguration
import StratusPostgreSQL

/// A kind of backend a test runs on — in memory, SQLite, LMDB or PostgreSQL — with fresh
/// temporary storage for each run, made through the providers configuration uses. PostgreSQL is
/// the server `STRATUS_TEST_POSTGRES_URL` names (scripts/test.sh starts one); without it a
/// PostgreSQL run fails, saying why.
public enum TestBackendKind: String, CaseIterable, CustomStringConvertible, Sendable {
    case memory, sqlite, lmdb, postgresql

    /// The kind's name, as test arguments show it.
    public var description: String { rawValue }

    private static let registry = BackendRegistry(StratusBootstrap.builtInProviders + [PostgreSQLBackendProvider()])

    /// Why a kind cannot run here.
    public struct Unavailable: Error, CustomStringConvertible {
        /// What is missing and how to get it.
        public var description: String
    }

    /// A URL like which storage is made; `name` names the SQLite file and the LMDB directory
    /// (their locations are never touched: each run's storage is new).
    private func url(named name: String) throws -> BackendURL {
        switch self {
        case .memory: return try BackendURL("memory:")
        case .sqlite: return try BackendURL("sqlite:///tmp/\(name).sqlite")
        case .lmdb: return try BackendURL("lmdb:///tmp/\(name)-lmdb")
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

    /// Runs `body` with fresh storage of this kind, then removes the storage (also when `body`
    /// throws).
    public func withTemporaryStorage<T>(
        named name: String, _ body: (any TemporaryStorage) async throws -> T
    ) async throws -> T {
        let storage = try Self.registry.makeTemporaryStorage(like: url(named: name))
        do {
            let result = try await body(storage)
            try storage.destroy()
            return result
        } catch {
            try? storage.destroy()
            throw error
        }
    }
}
