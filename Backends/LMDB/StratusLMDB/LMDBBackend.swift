public import StratusBackend
import StratusCLMDB
import Synchronization

/// A ``DatabaseBackend`` on LMDB: one environment (a directory holding `data.mdb` and
/// `lock.mdb`), one unnamed database, keys in unsigned byte order.
///
/// ```swift
/// let backend = try LMDBBackend(configuration: .init(path: "/var/lib/app/stratus.lmdb"))
/// try backend.write { try $0.set([1], [42]) }
/// let value = try backend.read { try $0.get([1]) }
/// try backend.close()
/// ```
///
/// ## Concurrency
/// - Writes run one at a time (a lock in the process, LMDB's writer lock across processes),
///   on the calling thread, which the transaction never leaves; bodies are synchronous.
/// - Reads run concurrently with each other and with the writer, each on an `MDB_NOTLS`
///   read-only transaction over one snapshot, begun and aborted around its body.
/// - Handles on one directory in one process share one `MDB_env` (LMDB forbids opening it
///   twice in a process).
///
/// ## The map
/// The map grows by itself: when a write fails with `MDB_MAP_FULL`, the transaction is
/// aborted, the map doubled once no transaction of the process is alive, and the body run
/// again. A map grown by another process (`MDB_MAP_RESIZED`) is adopted the same way.
///
/// See `Docs/Backends/LMDB.md` for durability, key sizes, error mapping and multi-process use.
public final class LMDBBackend: DatabaseBackend {
    /// The configuration the backend was opened with.
    public let configuration: Configuration
    /// Where the backend logs: `store opened` at info level, map growth at warning level, a
    /// map that cannot grow at error level (`Docs/Logging.md`).
    public let logger: Logger

    private struct State {
        var environment: LMDBEnvironment?
        var closed = false
        var active = 0
    }

    private let state: Mutex<State>
    /// The thread inside a write body, to refuse a nested write instead of deadlocking.
    private let writerOwner = Mutex<UInt?>(nil)

    /// Opens (and creates, if needed) the environment in the existing directory
    /// `configuration.path`.
    ///
    /// When another handle of this process has the directory open, the two share its
    /// environment: this handle's `durability` and `maxReaders` must be the ones it was opened
    /// with, a larger `initialMapSize` grows the map to it, and `maxMapSize` limits the
    /// growth of writes through this handle.
    ///
    /// - Throws: ``BackendError``: ``BackendError/Code-swift.struct/unavailable`` when the
    ///   directory does not exist, ``BackendError/Code-swift.struct/corrupted`` when its files
    ///   are not an LMDB environment, ``BackendError/Code-swift.struct/invalidArgument`` for an
    ///   invalid configuration or one the environment open in this process cannot give, and so
    ///   on.
    ///
    /// - Parameters:
    ///   - configuration: where the environment is and how it is opened.
    ///   - logger: where the backend logs. Defaults to `Logger(label: "stratus.lmdb")`, which
    ///     goes to the `LoggingSystem` the app bootstrapped.
    public init(configuration: Configuration, logger: Logger = Logger(label: "stratus.lmdb")) throws {
        try configuration.validate()
        self.configuration = configuration
        self.logger = logger
        let environment = try LMDBEnvironments.acquire(path: configuration.path, configuration: configuration)
        do {
            // Only a further handle can find the map smaller: LMDB opens with the larger of
            // the stored and the requested size.
            while environment.mapSize < configuration.initialMapSize {
                try environment.resize(configuration.initialMapSize)
            }
        } catch {
            LMDBEnvironments.release(environment)
            throw error
        }
        state = Mutex(State(environment: environment))
        logger.info(
            "store opened",
            metadata: [
                LogKey.backend: "lmdb", LogKey.location: "\(configuration.url)",
                LogKey.sizeBytes: "\(environment.mapSize)",
            ])
    }

    /// Runs `body` in a read-only transaction over one snapshot.
    ///
    /// - Throws: what `body` throws, or a ``BackendError``
    ///   (``BackendError/Code-swift.struct/busy`` when LMDB's reader table is full,
    ///   ``BackendError/Code-swift.struct/closed`` after ``close()``, …).
    public func read<T>(_ body: (any BackendReadTransaction) throws -> T) throws -> T {
        try withEnvironment { environment in
            let transaction = try begin(environment, writable: false)
            defer {
                transaction.abort()
                environment.exit()
            }
            return try body(transaction)
        }
    }

    /// Runs `body` in a serializable read-write transaction and commits it durably (as the
    /// configured durability promises).
    ///
    /// When the map is full the body is run again on a larger map, so it must have no effects
    /// outside the transaction (the SPI's rule). When `body` throws, nothing is applied and
    /// its error is rethrown unchanged.
    ///
    /// - Throws: what `body` throws, or a ``BackendError``:
    ///   ``BackendError/Code-swift.struct/storageFull`` when the map cannot grow or the disk
    ///   is full, ``BackendError/Code-swift.struct/busy`` when growth waited too long for
    ///   running reads, ``BackendError/Code-swift.struct/closed`` after ``close()``, …
    public func write<T>(_ body: (any BackendWriteTransaction) throws -> T) throws -> T {
        let me = CurrentThread.id
        if writerOwner.withLock({ $0 }) == me {
            throw BackendError(.internal, "LMDB: a write was started inside a write body on the same thread")
        }
        return try withEnvironment { environment in
            environment.writeLock.lock()
            writerOwner.withLock { $0 = me }
            defer {
                writerOwner.withLock { $0 = nil }
                environment.writeLock.unlock()
            }
            while true {
                if let result = try attemptWrite(environment, body) { return result }
                try grow(environment)
            }
        }
    }

    /// Closes the handle. Later calls to ``read(_:)`` and ``write(_:)`` throw
    /// ``BackendError/Code-swift.struct/closed``; transactions running now finish first, and
    /// the environment closes with the last handle on it. Calling `close()` again does
    /// nothing.
    public func close() throws {
        let released = state.withLock { state -> LMDBEnvironment? in
            guard !state.closed else { return nil }
            state.closed = true
            guard state.active == 0 else { return nil }
            defer { state.environment = nil }
            return state.environment
        }
        if let released { LMDBEnvironments.release(released) }
    }

    /// The map size in bytes now (it grows as the store does).
    public var mapSize: Int {
        get throws { try withEnvironment { $0.mapSize } }
    }

    // MARK: Internals

    /// One try of a write body: the result, or `nil` when the map was full and must grow.
    private func attemptWrite<T>(
        _ environment: LMDBEnvironment, _ body: (any BackendWriteTransaction) throws -> T
    ) throws -> T? {
        let transaction = try begin(environment, writable: true)
        defer {
            transaction.abort()
            environment.exit()
        }
        let result: T
        do {
            result = try body(transaction)
        } catch {
            if transaction.failure?.rawValue == MDB_MAP_FULL { return nil }
            throw error
        }
        if let failure = transaction.failure {
            if failure.rawValue == MDB_MAP_FULL { return nil }
            throw failure.error("a write failed inside the body")
        }
        do {
            try transaction.commit()
        } catch let error as BackendError where error.nativeCode == Int(MDB_MAP_FULL) {
            return nil
        }
        return result
    }

    /// Doubles the map (the write lock is held and no transaction of this handle is alive).
    private func grow(_ environment: LMDBEnvironment) throws {
        let current = environment.mapSize
        let (doubled, overflow) = current.multipliedReportingOverflow(by: 2)
        guard !overflow, doubled <= configuration.maxMapSize else {
            logger.error(
                "LMDB map is full and may not grow further; the write fails with storageFull",
                metadata: [
                    LogKey.location: "\(configuration.url)", LogKey.sizeBytes: "\(current)",
                    "stratus.lmdb.max_map_size": "\(configuration.maxMapSize)",
                ])
            throw BackendError(
                .storageFull,
                "LMDB: the map is full at \(current) bytes and may not grow past \(configuration.maxMapSize)",
                nativeCode: Int(MDB_MAP_FULL))
        }
        logger.warning(
            "LMDB map is full; doubling it and running the write again",
            metadata: [
                LogKey.location: "\(configuration.url)", LogKey.sizeBytes: "\(current)",
                LogKey.newSizeBytes: "\(doubled)",
            ])
        do {
            try environment.resize(doubled)
        } catch let error as BackendError where error.code == .busy {
            throw error
        } catch let error as BackendError {
            logger.error(
                "LMDB map cannot grow; the write fails with storageFull",
                metadata: [
                    LogKey.location: "\(configuration.url)", LogKey.sizeBytes: "\(current)",
                    LogKey.error: "\(error.code)",
                ])
            throw BackendError(
                .storageFull, "LMDB: the map is full at \(current) bytes and cannot grow: \(error.message)",
                nativeCode: Int(MDB_MAP_FULL), underlying: error)
        }
    }

    /// Begins a transaction inside the environment's gate, adopting a map another process
    /// grew. On return the gate has been entered; the caller exits it after ending the
    /// transaction.
    ///
    /// When LMDB's reader table is full, slots left by processes that died inside a read
    /// transaction are cleared (`mdb_reader_check`) and the transaction begun again, once: a
    /// long-running process never reopens the environment, where the check also runs.
    private func begin(_ environment: LMDBEnvironment, writable: Bool) throws -> LMDBTransaction {
        var checkedReaders = false
        while true {
            environment.enter()
            var opened: OpaquePointer?
            let rc = mdb_txn_begin(environment.env, nil, writable ? 0 : UInt32(MDB_RDONLY), &opened)
            if rc == MDB_SUCCESS, let txn = opened {
                return LMDBTransaction(environment: environment, txn: txn, writable: writable)
            }
            environment.exit()
            if rc == MDB_READERS_FULL && !checkedReaders {
                checkedReaders = true
                var dead: Int32 = 0
                if mdb_reader_check(environment.env, &dead) == MDB_SUCCESS && dead > 0 { continue }
            }
            guard rc == MDB_MAP_RESIZED else {
                throw LMDBStatus(rc).error(writable ? "begin a write transaction" : "begin a read transaction")
            }
            try environment.resize(0)
        }
    }

    /// Runs `work` with the environment, counting it as active so ``close()`` waits for it.
    private func withEnvironment<T>(_ work: (LMDBEnvironment) throws -> T) throws -> T {
        let environment = try state.withLock { state -> LMDBEnvironment in
            guard !state.closed, let environment = state.environment else {
                throw BackendError(.closed, "LMDB: the backend is closed")
            }
            state.active += 1
            return environment
        }
        defer {
            let released = state.withLock { state -> LMDBEnvironment? in
                state.active -= 1
                guard state.closed, state.active == 0, let environment = state.environment else { return nil }
                state.environment = nil
                return environment
            }
            if let released { LMDBEnvironments.release(released) }
        }
        return try work(environment)
    }
}
