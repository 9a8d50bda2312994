import StratusBackend
import StratusInMemory
import Synchronization

/// An in-memory store that counts what read transactions return (each key of a `get` or
/// `getMany`, each pair of a `scan`): how much of the store an operation reads, measured
/// without a clock.
final class ReadCountingBackend: DatabaseBackend {
    /// The count, shared with the transactions.
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
        func add(_ n: Int) { value.add(n, ordering: .relaxed) }
    }

    private let inner = InMemoryBackend()
    private let counter = Counter()

    /// Keys and pairs read since the last ``reset()``.
    var keysRead: Int { counter.value.load(ordering: .relaxed) }

    func reset() { counter.value.store(0, ordering: .relaxed) }

    func read<T>(_ body: (any BackendReadTransaction) throws -> T) throws -> T {
        try inner.read { try body(CountingRead(inner: $0, counter: counter)) }
    }

    func write<T>(_ body: (any BackendWriteTransaction) throws -> T) throws -> T {
        try inner.write(body)
    }

    func close() throws { inner.close() }
}

private final class CountingRead: BackendReadTransaction {
    let inner: any BackendReadTransaction
    let counter: ReadCountingBackend.Counter

    init(inner: any BackendReadTransaction, counter: ReadCountingBackend.Counter) {
        self.inner = inner
        self.counter = counter
    }

    func get(_ key: [UInt8]) throws -> [UInt8]? {
        counter.add(1)
        return try inner.get(key)
    }

    func scan(_ range: KeyRange, limit: Int, reverse: Bool) throws -> [KeyValuePair] {
        let pairs = try inner.scan(range, limit: limit, reverse: reverse)
        counter.add(pairs.count)
        return pairs
    }

    func getMany(_ keys: [[UInt8]]) throws -> [[UInt8]?] {
        counter.add(keys.count)
        return try inner.getMany(keys)
    }
}
