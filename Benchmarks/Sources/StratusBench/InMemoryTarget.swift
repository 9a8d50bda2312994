import StratusBackend
import StratusInMemory

/// The in-memory backend: a private store in this process.
///
/// Its raw baseline is the backend's own key-value API (`set` and `get` through the SPI) in
/// one write and one read transaction; the backend has no lower-level native API.
struct InMemoryTarget: BenchmarkTarget {
    let name = "memory"
    let label = "in-memory backend (persistent ordered map, private store)"

    func makeStore(in directory: String) throws -> BenchmarkStore {
        BenchmarkStore(backend: InMemoryBackend(), location: nil)
    }

    func openStore(at location: String) throws -> any DatabaseBackend {
        throw BackendError(.invalidArgument, "an in-memory store cannot be opened from another process")
    }

    func rawBaseline(rows: Int, valueBytes: Int, in directory: String) throws -> RawBaseline {
        let backend = InMemoryBackend()
        defer { backend.close() }
        let keys = (0..<rows).map(RawData.key)
        let values = (0..<rows).map { RawData.value($0, bytes: valueBytes) }
        let inserting = try Timing.sample {
            try backend.write { transaction in
                for (key, value) in zip(keys, values) { try transaction.set(key, value) }
            }
        }
        var bytesRead = 0
        let reading = try Timing.sample {
            bytesRead = try backend.read { transaction in
                var total = 0
                for key in keys { total += try transaction.get(key)?.count ?? 0 }
                return total
            }
        }
        guard bytesRead == rows * valueBytes else {
            throw BackendError(.internal, "in-memory raw baseline: read \(bytesRead) bytes of \(rows * valueBytes)")
        }
        return RawBaseline(
            rows: rows, insert: inserting, read: reading, insertMethod: "SPI set per key", readMethod: "SPI get per key"
        )
    }
}
