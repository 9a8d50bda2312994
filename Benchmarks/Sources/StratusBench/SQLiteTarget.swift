import Foundation
import StratusBackend
import StratusSQLite

/// The SQLite backend on a file in a scratch directory, with its default durability
/// (WAL, `synchronous=FULL`: every commit is synced).
struct SQLiteTarget: BenchmarkTarget {
    let name = "sqlite"
    let label = "SQLite file, WAL, synchronous=FULL (default durability)"

    func makeStore(in directory: String) throws -> BenchmarkStore {
        let path = directory + "/stratus.sqlite"
        return BenchmarkStore(backend: try openStore(at: path), location: path)
    }

    func openStore(at location: String) throws -> any DatabaseBackend {
        try SQLiteBackend(configuration: .init(location: .file(path: location)))
    }

    func rawBaseline(rows: Int, valueBytes: Int, in directory: String) throws -> RawBaseline {
        try SQLiteRawBaseline(path: directory + "/raw.sqlite").run(rows: rows, valueBytes: valueBytes)
    }
}
