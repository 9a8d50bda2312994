import Foundation
import Stratus
import StratusInMemory
import StratusSQLite
import StratusServer
import StratusTestSupport
import Testing

/// The backends the auth data is tested on: in memory, and SQLite in a file.
enum AuthTestBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, sqlite

    var testDescription: String { rawValue }

    /// A fresh store, with the directory to remove after the test (SQLite only).
    func open() throws -> (store: AuthStore, directory: TemporaryDirectory?) {
        switch self {
        case .memory:
            return (AuthStore(engine: try Engine(backend: InMemoryBackend())), nil)
        case .sqlite:
            let directory = try TemporaryDirectory(prefix: "stratus-auth")
            let backend = try SQLiteBackend(
                configuration: .init(location: .file(path: directory.appending("auth.sqlite").path)))
            return (AuthStore(engine: try Engine(backend: backend)), directory)
        }
    }

    /// Runs `body` with a fresh store, removing its files afterwards.
    func withStore<T>(_ body: (AuthStore) throws -> T) throws -> T {
        let (store, directory) = try open()
        defer { try? directory?.remove() }
        return try body(store)
    }
}
