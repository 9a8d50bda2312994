public import StratusBackend
import Synchronization

/// A complete Stratus backend over a sorted array: the worked example of
/// `Sources/StratusBackend/StratusBackend.docc/ImplementingABackend.md`.
///
/// It imports nothing of Stratus but `StratusBackend`, and passes the whole conformance suite.
/// It is written to be read, not to be fast: every key-value pair lives in one sorted array, a
/// write transaction works on a copy-on-write copy of that array, and the commit swaps the
/// copy in. See ``SortedArrayStore`` for how that keeps the contract.
///
/// - This class is a *handle* onto a ``SortedArrayStore``. Several handles may share one store
///   (the suite holds two at once), and a new handle on a store sees everything committed
///   through earlier ones: "durable" here means "outlives the handle", since nothing is
///   written to disk. ``init(store:)`` with no argument makes a handle on a private store.
/// - Calls may come from any number of threads at once.
///
/// ```swift
/// let container = CKContainer(identifier: "iCloud.com.example.app", backend: SortedArrayBackend())
/// ```
public final class SortedArrayBackend: DatabaseBackend {
    /// The storage this handle reads and writes.
    public let store: SortedArrayStore

    /// Set once by ``close()``; checked at the start of every transaction.
    private let isClosed = Atomic(false)

    /// A handle onto `store`, which may be shared with other handles; by default, a new,
    /// private, empty store.
    public init(store: SortedArrayStore = SortedArrayStore()) {
        self.store = store
    }

    /// Runs `body` over a snapshot of the last committed data.
    ///
    /// - Throws: what `body` throws, unchanged, or `BackendError` with code `.closed` after
    ///   ``close()`` (without running `body`).
    public func read<T>(_ body: (any BackendReadTransaction) throws -> T) throws -> T {
        try checkOpen()
        let transaction = SortedArrayReadTransaction(snapshot: store.snapshot())
        defer { transaction.end() }
        return try body(transaction)
    }

    /// Runs `body` as the only write transaction of the store, then commits.
    ///
    /// `body` sees its own changes at once and everybody else sees them, all together, when it
    /// returns. If it throws, nothing is applied. Writes never conflict, because they never
    /// overlap. `body` must not start another write on the same store, through any handle:
    /// it would wait for itself forever.
    ///
    /// - Throws: what `body` throws, unchanged, or `BackendError` with code `.closed` after
    ///   ``close()`` (without running `body`).
    public func write<T>(_ body: (any BackendWriteTransaction) throws -> T) throws -> T {
        try checkOpen()
        return try store.write { data in
            let transaction = SortedArrayWriteTransaction(data: data)
            defer { transaction.end() }
            let result = try body(transaction)
            data = transaction.data
            return result
        }
    }

    /// Closes this handle: later transactions through it throw `BackendError` with code
    /// `.closed`. The store and other handles on it are not affected. Closing twice is
    /// harmless.
    public func close() {
        isClosed.store(true, ordering: .releasing)
    }

    private func checkOpen() throws {
        if isClosed.load(ordering: .acquiring) {
            throw BackendError(.closed, "the sorted-array backend handle was closed")
        }
    }
}
