public import StratusBackend
import Synchronization

/// A real, complete `DatabaseBackend` that keeps its data in memory.
///
/// It passes the whole conformance suite and is the engine's default in unit tests. It is also
/// meant to be read: a small, commented example of everything the SPI asks of a backend.
///
/// - Data lives in an ``InMemoryStore``; this class is a *handle* onto it. Several handles may
///   share one store, and a new handle on the same store sees every committed write, which is
///   what "durable" means for memory. ``init()`` makes a handle on a private store.
/// - Reads see one snapshot, writes are serialized, and a write body reads its own writes; see
///   ``InMemoryStore`` for how.
/// - Nothing is ever written to disk: the data is gone once the last reference to the store is.
///
/// ```swift
/// let backend = InMemoryBackend()
/// try backend.write { transaction in
///     try transaction.set(Array("greeting".utf8), Array("hello".utf8))
/// }
/// let value = try backend.read { try $0.get(Array("greeting".utf8)) }
/// ```
public final class InMemoryBackend: DatabaseBackend {
    /// The storage this handle reads and writes.
    public let store: InMemoryStore

    /// Set once by ``close()``; checked at the start of every transaction.
    private let isClosed = Atomic(false)

    /// A handle onto `store`, which may be shared with other handles.
    public init(store: InMemoryStore) {
        self.store = store
    }

    /// A handle onto a new, private, empty store.
    public convenience init() {
        self.init(store: InMemoryStore())
    }

    /// Runs `body` over a snapshot of the last committed data.
    ///
    /// The snapshot is immutable, so `body` reads it without holding any lock and sees none of
    /// the writes that commit while it runs.
    ///
    /// - Throws: what `body` throws, or `BackendError` with code `.closed` after ``close()``.
    public func read<T>(_ body: (any BackendReadTransaction) throws -> T) throws -> T {
        try checkOpen()
        let transaction = InMemoryReadTransaction(snapshot: store.snapshot())
        defer { transaction.end() }
        return try body(transaction)
    }

    /// Runs `body` as the only write transaction of the store, then commits.
    ///
    /// `body` works on a private copy of the data, sees its own changes at once, and publishes
    /// them all together when it returns. If it throws, the copy is dropped and nothing is
    /// applied. Writes never conflict, because they never overlap.
    ///
    /// `body` must not start another write on the same store, through any handle: writers
    /// wait for one another, so it would wait for itself forever. Reads inside it are fine
    /// (they see the last commit, not this body's changes).
    ///
    /// - Throws: what `body` throws (unchanged), or `BackendError` with code `.closed` after
    ///   ``close()``.
    public func write<T>(_ body: (any BackendWriteTransaction) throws -> T) throws -> T {
        try checkOpen()
        return try store.write { data in
            let transaction = InMemoryWriteTransaction(data: data)
            defer { transaction.end() }
            let result = try body(transaction)
            data = transaction.data
            return result
        }
    }

    /// Closes this handle: later transactions through it throw `BackendError` with code
    /// `.closed`. The store and other handles on it are not affected. Closing twice is harmless.
    public func close() {
        isClosed.store(true, ordering: .releasing)
    }

    private func checkOpen() throws {
        if isClosed.load(ordering: .acquiring) {
            throw BackendError(.closed, "the in-memory backend handle was closed")
        }
    }
}
