import Foundation
import Stratus
import StratusBackend
import StratusConfiguration
import StratusPostgreSQL

/// The backends the sync engine tests run on: fresh temporary storage of each kind, opened as
/// many times as a test has devices. PostgreSQL is the server `STRATUS_TEST_POSTGRES_URL` names
/// (scripts/test.sh starts one); without it the PostgreSQL runs fail, saying why.
enum SyncBackend: String, CaseIterable, CustomStringConvertible, Sendable {
    case memory, sqlite, lmdb, postgresql

    var description: String { rawValue }

    private static let registry = BackendRegistry(StratusBootstrap.builtInProviders + [PostgreSQLBackendProvider()])

    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    private func url() throws -> BackendURL {
        switch self {
        case .memory: return try BackendURL("memory:")
        case .sqlite: return try BackendURL("sqlite:///tmp/sync-engine.sqlite")
        case .lmdb: return try BackendURL("lmdb:///tmp/sync-engine-lmdb")
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

    /// Runs `body` with fresh storage of this kind, whose `open()` gives a new container (a new
    /// handle on the same store) each call, then removes the storage.
    func withStore<T>(_ body: (_ open: @escaping () throws -> CKContainer) async throws -> T) async throws -> T {
        let storage = try Self.registry.makeTemporaryStorage(like: url())
        do {
            let result = try await body { CKContainer(identifier: "iCloud.sync-engine", backend: try storage.open()) }
            try storage.destroy()
            return result
        } catch {
            try? storage.destroy()
            throw error
        }
    }

    /// Runs `body` with two devices, A and B, started on fresh storage of this kind (each on a
    /// handle of its own), and `open` for more handles.
    func withTwoDevices(
        automaticallySync: Bool = false,
        _ body: (_ a: Device, _ b: Device, _ open: @escaping () throws -> CKContainer) async throws -> Void
    ) async throws {
        try await withStore { open in
            let (a, b) = (Device("A"), Device("B"))
            a.start(try open().privateCloudDatabase, automaticallySync: automaticallySync)
            b.start(try open().privateCloudDatabase, automaticallySync: automaticallySync)
            try await body(a, b, open)
        }
    }

    /// Runs `body` with fresh storage of this kind, whose `open()` gives a new backend handle on
    /// it each call, then removes the storage.
    func withBackends<T>(_ body: (_ open: () throws -> any DatabaseBackend) async throws -> T) async throws -> T {
        let storage = try Self.registry.makeTemporaryStorage(like: url())
        do {
            let result = try await body { try storage.open() }
            try storage.destroy()
            return result
        } catch {
            try? storage.destroy()
            throw error
        }
    }
}
