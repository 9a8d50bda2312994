import Foundation
import StratusBackend
import StratusLMDB

/// The LMDB backend on an environment in a scratch directory, with its default durability
/// (`full`: data and meta pages synced at every commit).
struct LMDBTarget: BenchmarkTarget {
    let name = "lmdb"
    let label = "LMDB environment in a scratch directory, durability full (every commit synced)"

    func makeStore(in directory: String) throws -> BenchmarkStore {
        let path = directory + "/stratus.lmdb"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return BenchmarkStore(backend: try openStore(at: path), location: path)
    }

    func openStore(at location: String) throws -> any DatabaseBackend {
        try LMDBBackend(configuration: .init(path: location))
    }

    func rawBaseline(rows: Int, valueBytes: Int, in directory: String) throws -> RawBaseline {
        try LMDBRawBaseline(path: directory + "/raw.lmdb").run(rows: rows, valueBytes: valueBytes)
    }
}
