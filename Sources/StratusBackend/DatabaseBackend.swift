/// A durable, ordered, transactional byte-key → byte-value store: the storage SPI of Stratus.
///
/// The Stratus engine calls this protocol; applications never do. Everything CloudKit — records,
/// zones, change logs, query indexes, tokens, cursors, the long-lived operation journal — lives
/// once, in the engine, encoded into ordered keys. A backend only has to store bytes in order and
/// keep transactions honest. See `Sources/StratusBackend/StratusBackend.docc/ImplementingABackend.md` and decision record 0001.
///
/// ## The contract
/// - **Ordering.** Keys are compared as unsigned byte strings, lexicographically (`memcmp`
///   order, a shorter key sorting before any key it prefixes). Range scans return keys in that
///   order. Checked by `kv.ordering.unsignedBytes`, `kv.ordering.longKeys` and `kv.scan.*`.
/// - **Snapshot reads.** Every read in one ``read(_:)`` body sees one consistent snapshot:
///   either all of a concurrent write transaction's effects or none. Checked by
///   `kv.isolation.snapshotRead` and `kv.isolation.commitVisibleToLaterReads`.
/// - **Serializable writes.** Write transactions behave as if run one at a time: a body that
///   reads a key and writes it back never loses a concurrent update (no lost updates, no write
///   skew). A backend may abort a body that would break this and throw
///   ``BackendError/Code-swift.struct/conflict``; the engine then runs the body again.
///   Checked by `kv.isolation.noLostUpdates` and `kv.isolation.writeSkew`.
/// - **Read your writes.** Inside a write body, ``BackendReadTransaction/get(_:)`` and
///   ``BackendReadTransaction/scan(_:limit:reverse:)`` see the body's own earlier writes.
///   Checked by `kv.write.readYourWrites`.
/// - **Atomic, durable commit.** When ``write(_:)`` returns, every change of the body is
///   durable (survives a crash and a reopen); when the body throws, none is applied.
///   Checked by `kv.durability.reopen`, `kv.durability.abortedNotVisibleAfterReopen`,
///   `kv.write.abortOnThrow` and `kv.write.returnsBodyResult`.
/// - **Threads.** Bodies are synchronous and run to completion on the calling thread (or a
///   thread the backend chooses) before the method returns; transaction objects never escape
///   their body. Calls may come from many threads at once.
///
/// No requirement of this protocol has a default implementation; of the transaction
/// protocols, only `BackendReadTransaction.getMany(_:)` has one (a `get` per key).
public protocol DatabaseBackend: AnyObject, Sendable {
    /// Runs `body` in a read-only transaction over one consistent snapshot of the store.
    ///
    /// - Throws: what `body` throws (unchanged: `kv.read.rethrowsBodyError`), or a
    ///   ``BackendError`` if the snapshot cannot be taken.
    func read<T>(_ body: (any BackendReadTransaction) throws -> T) throws -> T

    /// Runs `body` in a serializable read-write transaction, then commits durably.
    ///
    /// If `body` throws, the transaction is rolled back and the error is rethrown unchanged.
    /// If the backend cannot commit without breaking serializability it throws
    /// ``BackendError`` with code ``BackendError/Code-swift.struct/conflict`` and nothing of the
    /// body is applied; the caller may run the body again. A body must therefore have no
    /// effects outside the transaction.
    func write<T>(_ body: (any BackendWriteTransaction) throws -> T) throws -> T

    /// Releases the backend's resources. Later calls throw ``BackendError`` with code
    /// ``BackendError/Code-swift.struct/closed``. Calling `close()` twice is harmless, and
    /// closing one handle leaves other handles on the same storage open. Checked by
    /// `kv.lifecycle.closedHandleThrowsClosed`, `kv.lifecycle.closeIsIdempotent` and
    /// `kv.lifecycle.closeLeavesOtherHandlesOpen`.
    ///
    /// The engine never starts a transaction inside a write body, so a backend may assume
    /// write bodies do not nest.
    func close() throws
}
