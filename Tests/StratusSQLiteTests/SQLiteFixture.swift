import Foundation
import StratusBackend
import StratusConformance
import StratusSQLite

/// Makes SQLite file stores for the conformance suite: one temporary directory per storage.
struct SQLiteFixture: BackendFixture {
    var name: String { "sqlite" }

    func makeStorage() async throws -> any FixtureStorage {
        try SQLiteFixtureStorage()
    }
}

/// A temporary directory holding one SQLite store, `store.sqlite`, and its WAL files.
struct SQLiteFixtureStorage: FixtureStorage {
    /// The temporary directory, removed by ``destroy()``.
    let directory: URL
    /// The path of the database file.
    var path: String { directory.appendingPathComponent("store.sqlite").path }

    /// Creates a fresh, empty temporary directory.
    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("stratus-sqlite-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func open() throws -> any DatabaseBackend {
        try openSQLite()
    }

    /// Opens a backend on the store with the given settings.
    func openSQLite(
        durability: SQLiteBackend.Configuration.Durability = .full,
        busyTimeout: Duration = .seconds(5),
        readerCount: Int = 4
    ) throws -> SQLiteBackend {
        try SQLiteBackend(
            configuration: .init(
                location: .file(path: path), durability: durability, busyTimeout: busyTimeout,
                readerCount: readerCount))
    }

    func destroy() throws {
        try FileManager.default.removeItem(at: directory)
    }
}

/// Runs `body` with fresh storage and destroys it afterwards, whatever happens.
func withSQLiteStorage<T>(_ body: (SQLiteFixtureStorage) throws -> T) throws -> T {
    let storage = try SQLiteFixtureStorage()
    defer { try? storage.destroy() }
    return try body(storage)
}
