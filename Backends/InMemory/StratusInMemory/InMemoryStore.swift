import Synchronization

/// The data of one in-memory database, shared by every ``InMemoryBackend`` handle opened on it.
///
/// A store lives as long as something references it; handles come and go. Closing a handle and
/// opening a new one on the same store is how tests "reopen" an in-memory database: the new
/// handle sees every committed write.
///
/// ```swift
/// let store = InMemoryStore()
/// let first = InMemoryBackend(store: store)
/// try first.write { try $0.set([1], [42]) }
/// try first.close()
/// let reopened = InMemoryBackend(store: store)
/// let value = try reopened.read { try $0.get([1]) }   // [42]
/// ```
///
/// ## Concurrency control
/// The store keeps the last committed version of the data as one immutable
/// ``PersistentOrderedMap``, so it needs only two small locks:
///
/// - A **read** takes the committed version under `committed`'s lock, which costs one reference
///   copy, and then reads it with no lock at all. Nobody can change that version, so every read
///   of the transaction sees one consistent snapshot, whatever commits meanwhile.
/// - A **write** holds `writerLock` for its whole body, so write transactions run one at a time:
///   serializable by construction, and never a `.conflict`. The body changes its own copy of
///   the committed version (path copying, O(log n) per change, and it reads its own writes),
///   and the commit publishes that copy with one assignment under `committed`'s lock. If the
///   body throws, the copy is simply dropped.
///
/// Readers never wait for a writer's body, only for that final assignment.
public final class InMemoryStore: Sendable {
    /// The last committed version of the data.
    private let committed = Mutex(KeyValueMap())
    /// Held by the one write transaction running, for its whole body.
    private let writerLock = Mutex(())

    /// A new, empty store.
    public init() {}

    /// The last committed version of the data: an immutable snapshot, free to read without
    /// locks for as long as the caller likes. O(1).
    func snapshot() -> KeyValueMap {
        committed.withLock { $0 }
    }

    /// Runs `body` on a private copy of the committed data while no other write runs, then
    /// publishes the copy as the new committed version. If `body` throws, nothing is published
    /// and the error is rethrown.
    ///
    /// `body` must not start another write on this store: it would wait for itself forever.
    func write<T>(_ body: (inout KeyValueMap) throws -> T) throws -> T {
        try writerLock.withLock { _ in
            var draft = snapshot()
            let result = try body(&draft)
            committed.withLock { $0 = draft }
            return result
        }
    }
}

/// The data an ``InMemoryStore`` holds: byte-string keys to byte-string values, in key order.
typealias KeyValueMap = PersistentOrderedMap<[UInt8]>
