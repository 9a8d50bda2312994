import Synchronization

/// The data of one sorted-array database, shared by every ``SortedArrayBackend`` handle
/// opened on it.
///
/// A store lives as long as something references it; handles come and go. A new handle on
/// the same store sees every write committed through earlier ones, so closing a handle and
/// opening another is how the conformance suite "reopens" this backend.
///
/// ```swift
/// let store = SortedArrayStore()
/// let first = SortedArrayBackend(store: store)
/// try first.write { try $0.set([1], [42]) }
/// first.close()
/// let reopened = SortedArrayBackend(store: store)
/// let value = try reopened.read { try $0.get([1]) }   // [42]
/// ```
///
/// ## How the contract is kept
/// The store holds the last committed version of the data as one sorted array (`SortedPairs`), and
/// two locks:
///
/// - **Snapshot reads.** A read copies the committed version under `committed`'s lock. The
///   copy is O(1) (an `Array` shares its buffer until it is changed) and nobody ever changes
///   it, so the read sees one consistent state however many writes commit meanwhile.
/// - **Serializable writes.** A write holds `writerLock` for its whole body, so write
///   transactions run one at a time: serializable by construction. This backend therefore
///   never throws `.conflict`; a backend with optimistic or multi-version concurrency would
///   throw it instead, and the engine would run the body again.
/// - **Read your writes.** The body changes a private copy of the committed version
///   (copy-on-write: the array is copied once, at the body's first change) and reads that
///   copy, so it sees its own changes at once.
/// - **Atomic commit.** When the body returns, the copy replaces the committed version in one
///   assignment under `committed`'s lock: readers see all of the body's changes or none. When
///   the body throws, the copy is dropped and nothing is applied.
///
/// Readers never wait for a writer's body, only for that final assignment.
public final class SortedArrayStore: Sendable {
    /// The last committed version of the data.
    private let committed = Mutex(SortedPairs())
    /// Held by the one write transaction running, for its whole body.
    private let writerLock = Mutex(())

    /// A new, empty store.
    public init() {}

    /// How many keys the last committed version holds.
    public var count: Int {
        snapshot().pairs.count
    }

    /// The last committed version of the data: a snapshot nobody changes. O(1).
    func snapshot() -> SortedPairs {
        committed.withLock { $0 }
    }

    /// Runs `body` on a private copy of the committed data while no other write runs, then
    /// publishes the copy as the new committed version. If `body` throws, nothing is
    /// published and the error is rethrown unchanged.
    ///
    /// `body` must not start another write on this store: it would wait for itself forever.
    func write<T>(_ body: (inout SortedPairs) throws -> T) throws -> T {
        try writerLock.withLock { _ in
            var draft = snapshot()
            let result = try body(&draft)
            committed.withLock { $0 = draft }
            return result
        }
    }
}
