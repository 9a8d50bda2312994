import StratusBackend

/// A storage backend the harness measures, with the raw baseline of its native API.
///
/// Adding a backend means one conforming type and one entry in ``BenchmarkTargets/all``: the
/// CloudKit-level runs are shared, and the raw baseline does the equivalent inserts and point
/// reads through that backend's own API, in one transaction each.
protocol BenchmarkTarget: Sendable {
    /// The name used on the command line and in results (`sqlite`, `memory`, …).
    var name: String { get }
    /// What exactly is measured, for people (location, durability, …).
    var label: String { get }

    /// A new, empty store for the CloudKit-level runs, with scratch space in `directory`.
    func makeStore(in directory: String) throws -> BenchmarkStore

    /// Opens a store made by ``makeStore(in:)`` from its ``BenchmarkStore/location``, in another
    /// process. Only called for stores that have a location.
    func openStore(at location: String) throws -> any DatabaseBackend

    /// Inserts `rows` values of `valueBytes` bytes in one transaction, then reads each back
    /// with a point read in one read transaction, through the backend's native API. A backend
    /// with several ways to do either (PostgreSQL: `COPY` or multi-row `INSERT`s) measures each
    /// and names them; the fastest is the one the ratios use.
    func rawBaseline(rows: Int, valueBytes: Int, in directory: String) throws -> RawBaseline

    /// Runs `body` with this target ready to make stores, then undoes what it set up: the
    /// PostgreSQL target starts a private server (or uses the one `settings` names) and creates
    /// a database of the run's own. The default passes `self`: nothing to set up.
    func withSession<T>(_ settings: TargetSettings, _ body: (any BenchmarkTarget) throws -> T) throws -> T

    /// The environment a child process needs to join what the session set up (PostgreSQL:
    /// its server, as `STRATUS_BENCH_POSTGRES_URL`). The default is empty.
    var childEnvironment: [String: String] { get }
}

extension BenchmarkTarget {
    func withSession<T>(_ settings: TargetSettings, _ body: (any BenchmarkTarget) throws -> T) throws -> T {
        try body(self)
    }

    var childEnvironment: [String: String] { [:] }
}

/// A store the harness runs CloudKit operations against.
struct BenchmarkStore {
    /// The backend handle.
    var backend: any DatabaseBackend
    /// Where another process can open the same store, or `nil` when it lives in this
    /// process's memory only (a child process then builds its own).
    var location: String?
}

/// The backends the harness knows, by command-line name.
enum BenchmarkTargets {
    /// Every backend, in the order they run and are reported.
    static let all: [any BenchmarkTarget] = [SQLiteTarget(), LMDBTarget(), PostgreSQLTarget(), InMemoryTarget()]

    /// The backend named `name`, or `nil`.
    static func named(_ name: String) -> (any BenchmarkTarget)? {
        all.first { $0.name == name }
    }
}

/// The deterministic keys and values of the raw baselines.
enum RawData {
    /// The key of row `index`: a 4-byte prefix and the index big-endian, so rows go in key
    /// order (the best case for a B-tree, which makes the baseline a ceiling).
    static func key(_ index: Int) -> [UInt8] {
        var key: [UInt8] = [0x72, 0x61, 0x77, 0x00]
        withUnsafeBytes(of: UInt64(index).bigEndian) { key.append(contentsOf: $0) }
        return key
    }

    /// A value of `bytes` bytes that differs from row to row.
    static func value(_ index: Int, bytes: Int) -> [UInt8] {
        (0..<bytes).map { UInt8(truncatingIfNeeded: index &+ $0 &* 31) }
    }
}
