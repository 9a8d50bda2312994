public import StratusBackend
import StratusCSQLite
import Synchronization

/// A ``DatabaseBackend`` on SQLite: the embedded default of Stratus.
///
/// A file store is one SQLite database in WAL journal mode holding one table,
/// `kv(key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID`. SQLite compares BLOB keys
/// with `memcmp` and then by length, which is the SPI's key order.
///
/// ```swift
/// let backend = try SQLiteBackend(
///     configuration: .init(location: .file(path: "/var/lib/app/stratus.sqlite")))
/// try backend.write { try $0.set([1], [42]) }
/// let value = try backend.read { try $0.get([1]) }
/// try backend.close()
/// ```
///
/// ## Concurrency
/// - Writes run on one writer connection under a lock, so they are serialized in the process,
///   and each starts with `BEGIN IMMEDIATE`, so they are serialized with writers in other
///   processes too: a write waits up to ``Configuration-swift.struct/busyTimeout`` for another
///   process's write lock, then throws ``BackendError/Code-swift.struct/busy``.
/// - Reads run on a pool of up to ``Configuration-swift.struct/readerCount`` reader
///   connections, concurrently with each other and with the writer; each read body sees one
///   WAL snapshot, taken at its first read.
/// - An in-memory store has one connection for everything, under the writer lock.
/// - Bodies run on the calling thread. A body must not start a write on the same backend from
///   inside a write body (or, on an in-memory store, any transaction from inside any body):
///   that would wait for itself, so it throws ``BackendError/Code-swift.struct/internal``.
///
/// See `Docs/Backends/SQLite.md` for durability, error mapping and multi-process use.
public final class SQLiteBackend: DatabaseBackend {
    /// The configuration the backend was opened with.
    public let configuration: Configuration
    /// Where the backend logs: `store opened` at info level, a write that waited out the busy
    /// timeout at warning level (`Docs/Logging.md`).
    public let logger: Logger

    private struct WriterState {
        /// The writer connection of a file store, or the only connection of an in-memory
        /// store; `nil` once closed.
        var connection: SQLiteConnection?
    }

    private let writer: Mutex<WriterState>
    /// The thread that holds the writer lock, to refuse re-entry instead of deadlocking.
    private let writerOwner = Mutex<UInt?>(nil)
    /// The reader connections of a file store; `nil` for an in-memory store.
    private let readers: SQLiteConnectionPool?

    /// Opens (and creates, if needed) the store that `configuration` describes.
    ///
    /// - Throws: ``BackendError`` with code
    ///   - ``BackendError/Code-swift.struct/corrupted`` when the file is not a SQLite
    ///     database or is damaged;
    ///   - ``BackendError/Code-swift.struct/unavailable`` when the file cannot be opened or
    ///     created (a missing directory, say);
    ///   - ``BackendError/Code-swift.struct/busy`` when another process holds the store
    ///     locked for longer than the busy timeout;
    ///   - ``BackendError/Code-swift.struct/invalidArgument`` for an invalid configuration
    ///     or a file that is not a Stratus store of a supported format version.
    ///
    /// - Parameters:
    ///   - configuration: where the store is and how it is opened.
    ///   - logger: where the backend logs. Defaults to `Logger(label: "stratus.sqlite")`, which
    ///     goes to the `LoggingSystem` the app bootstrapped.
    public init(configuration: Configuration, logger: Logger = Logger(label: "stratus.sqlite")) throws {
        guard sqlite3_threadsafe() != 0 else {
            throw BackendError(.internal, "SQLite: the linked library was built without thread support")
        }
        guard configuration.readerCount >= 1 else {
            throw BackendError(
                .invalidArgument,
                "SQLite: readerCount must be at least 1, got \(configuration.readerCount)")
        }
        self.configuration = configuration
        self.logger = logger
        switch configuration.location {
        case .inMemory:
            let connection = try SQLiteConnection(path: "", role: .memory, configuration: configuration)
            try SQLiteSchema.prepare(connection)
            writer = Mutex(WriterState(connection: connection))
            readers = nil
        case .file(let path):
            guard !path.isEmpty, path != ":memory:" else {
                throw BackendError(
                    .invalidArgument,
                    "SQLite: a file store needs a file path; use Location.inMemory for a store in memory")
            }
            let connection = try SQLiteConnection(path: path, role: .writer, configuration: configuration)
            try SQLiteSchema.prepare(connection)
            writer = Mutex(WriterState(connection: connection))
            readers = SQLiteConnectionPool(capacity: configuration.readerCount) {
                try SQLiteConnection(path: path, role: .reader, configuration: configuration)
            }
        }
        logger.info(
            "store opened",
            metadata: [
                LogKey.backend: "sqlite", LogKey.location: "\(configuration.location.url)",
                "stratus.sqlite.durability": "\(configuration.durability)",
            ])
    }

    /// Runs `body` in a read-only transaction over one consistent snapshot of the store.
    ///
    /// On a file store the body runs on a reader connection, concurrently with other reads
    /// and with writes. Its snapshot is taken at its first read and excludes any write that
    /// commits later.
    ///
    /// - Throws: what `body` throws, or a ``BackendError``
    ///   (``BackendError/Code-swift.struct/closed`` after ``close()``).
    public func read<T>(_ body: (any BackendReadTransaction) throws -> T) throws -> T {
        if let readers {
            return try readers.withConnection { connection in try connection.runRead(body) }
        }
        return try withWriter { connection in try connection.runRead(body) }
    }

    /// Runs `body` in a serializable read-write transaction and commits it.
    ///
    /// The body sees its own writes. When it throws, nothing is applied and its error is
    /// rethrown unchanged. When `write` returns, the changes are durable as
    /// ``Configuration-swift.struct/durability`` promises.
    ///
    /// - Throws: what `body` throws, or a ``BackendError``:
    ///   ``BackendError/Code-swift.struct/busy`` when another process held the write lock
    ///   longer than the busy timeout (nothing was applied; retry later),
    ///   ``BackendError/Code-swift.struct/storageFull`` when the disk is full,
    ///   ``BackendError/Code-swift.struct/closed`` after ``close()``, and so on.
    public func write<T>(_ body: (any BackendWriteTransaction) throws -> T) throws -> T {
        do {
            return try withWriter { connection in try connection.runWrite(body) }
        } catch let error as BackendError where error.code == .busy {
            // SQLite's busy handler retried until the timeout: those retries are exhausted.
            logger.warning(
                "SQLite store stayed locked by another connection for the whole busy timeout; the write fails with busy",
                metadata: [
                    LogKey.location: "\(configuration.location.url)",
                    "stratus.sqlite.busy_timeout_ms": "\(configuration.busyTimeoutMilliseconds)",
                ])
            throw error
        }
    }

    /// Closes every connection. Waits for a running write; a running read finishes on its
    /// connection, which closes when the read ends. Later calls to ``read(_:)`` and
    /// ``write(_:)`` throw ``BackendError/Code-swift.struct/closed``. Calling `close()` again
    /// does nothing.
    ///
    /// - Throws: a ``BackendError`` if a connection fails to close (the backend is closed
    ///   anyway).
    public func close() throws {
        if writerOwner.withLock({ $0 }) == CurrentThread.id {
            throw BackendError(.internal, "SQLite: close() was called inside a transaction body")
        }
        let connection = writer.withLock { state -> SQLiteConnection? in
            defer { state.connection = nil }
            return state.connection
        }
        var firstError: (any Error)?
        if let readers {
            do { try readers.close() } catch { firstError = error }
        }
        if let connection {
            do { try connection.close() } catch { firstError = firstError ?? error }
        }
        if let firstError { throw firstError }
    }

    /// Runs `work` with the writer connection, holding the writer lock.
    private func withWriter<T>(_ work: (SQLiteConnection) throws -> T) throws -> T {
        let me = CurrentThread.id
        if writerOwner.withLock({ $0 }) == me {
            throw BackendError(
                .internal,
                "SQLite: a transaction was started inside a body that holds the writer connection on the same thread; it would wait for itself"
            )
        }
        var outcome: Result<T, any Error> = .failure(SQLiteBackend.closedError)
        writer.withLock { state in
            guard let connection = state.connection else { return }
            writerOwner.withLock { $0 = me }
            defer { writerOwner.withLock { $0 = nil } }
            outcome = Result { try work(connection) }
        }
        return try outcome.get()
    }

    static let closedError = BackendError(.closed, "SQLite: the backend is closed")
}
