import StratusBackend
import StratusCSQLite

/// One `sqlite3` connection with its cache of prepared statements.
///
/// `@unchecked Sendable` because the compiler cannot see the rule that keeps it safe: a
/// connection is used by one thread at a time. The writer (or in-memory) connection is only
/// reached while holding the backend's writer lock, and a reader connection only while it is
/// checked out of the ``SQLiteConnectionPool`` by one read transaction. Connections are opened
/// with `SQLITE_OPEN_NOMUTEX` for the same reason: SQLite's own per-connection mutex would
/// only guard against a misuse these locks already rule out.
///
/// `deinit` only finalizes statements and closes the handle; it never commits. An open
/// transaction is rolled back by SQLite when the handle closes.
final class SQLiteConnection: @unchecked Sendable {
    /// What the connection is for; it decides the flags and the pragmas it is opened with.
    enum Role {
        /// The one connection that writes a file store.
        case writer
        /// A connection that only reads a file store (`PRAGMA query_only`).
        case reader
        /// The only connection of an in-memory store, for reads and writes.
        case memory
    }

    private var db: OpaquePointer?
    private var statements: [SQLiteStatement.Kind: SQLiteStatement] = [:]

    /// Opens a connection on `path` (ignored for ``Role/memory``).
    init(path: String, role: Role, configuration: SQLiteBackend.Configuration) throws {
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        if role != .reader { flags |= SQLITE_OPEN_CREATE }
        if role == .memory { flags |= SQLITE_OPEN_MEMORY }
        let filename = role == .memory ? ":memory:" : path

        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(filename, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            // SQLite usually returns a handle even when opening fails; it must be closed.
            let error = SQLiteResultCode(rc).error("opening the database", db: handle)
            sqlite3_close_v2(handle)
            throw error
        }
        db = handle
        // From here on a throw runs deinit, which closes the handle.
        try check(sqlite3_extended_result_codes(handle, 1), "enabling extended result codes")
        try check(
            sqlite3_busy_timeout(handle, configuration.busyTimeoutMilliseconds),
            "setting the busy timeout")
        switch role {
        case .writer:
            // The first statement that reads the file: a file that is not a database fails
            // here with SQLITE_NOTADB.
            let mode = try switchToWAL(within: configuration.busyTimeout)
            guard mode?.lowercased() == "wal" else {
                throw BackendError(
                    .unavailable,
                    "SQLite: the store cannot use WAL journal mode (it is in '\(mode ?? "?")' mode)")
            }
            let synchronous = configuration.durability == .full ? "FULL" : "NORMAL"
            try execute("PRAGMA synchronous=\(synchronous)")
        case .reader:
            try execute("PRAGMA query_only=ON")
        case .memory:
            break
        }
    }

    /// Runs `PRAGMA journal_mode=WAL`, retrying while it answers busy, for at most
    /// `busyTimeout`, and returns the mode the store is in.
    ///
    /// The pragma can answer `SQLITE_BUSY` without SQLite calling the busy handler: while
    /// another process creates the same file (its first transaction, or its own switch to WAL),
    /// the change of journal mode needs a lock the busy handler is not consulted for. Seen
    /// under load with two processes opening one new store at once.
    private func switchToWAL(within busyTimeout: Duration) throws -> String? {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: busyTimeout)
        var pauseMilliseconds: Int32 = 2
        while true {
            do {
                return try queryText("PRAGMA journal_mode=WAL")
            } catch let error as BackendError where error.code == .busy && clock.now < deadline {
                sqlite3_sleep(pauseMilliseconds)
                pauseMilliseconds = min(pauseMilliseconds * 2, 100)
            }
        }
    }

    deinit {
        for statement in statements.values { statement.finalize() }
        // close_v2 never fails for a valid handle whose statements are finalized.
        sqlite3_close_v2(db)
    }

    /// Finalizes every statement and closes the handle. Later uses throw `.closed`.
    /// Calling it again does nothing.
    func close() throws {
        guard let handle = db else { return }
        for statement in statements.values { statement.finalize() }
        statements.removeAll()
        db = nil
        let rc = sqlite3_close(handle)
        if rc != SQLITE_OK {
            // Cannot happen with every statement finalized; let SQLite free the handle once
            // whatever still holds it is done, and report the failure.
            let error = SQLiteResultCode(rc).error("closing the database", db: handle)
            sqlite3_close_v2(handle)
            throw error
        }
    }

    /// The live handle, or `.closed`.
    private func live() throws -> OpaquePointer {
        guard let db else { throw BackendError(.closed, "SQLite: the connection is closed") }
        return db
    }

    /// Throws the mapped error unless `rc` is `SQLITE_OK`.
    private func check(_ rc: Int32, _ action: String) throws {
        guard rc == SQLITE_OK else { throw SQLiteResultCode(rc).error(action, db: db) }
    }

    // MARK: Statements

    /// The cached statement of `kind`, prepared on first use.
    func statement(_ kind: SQLiteStatement.Kind) throws -> SQLiteStatement {
        if let cached = statements[kind] { return cached }
        let statement = try SQLiteStatement(db: try live(), sql: kind.sql, persistent: true)
        statements[kind] = statement
        return statement
    }

    /// Runs the cached statement of `kind`, which returns no rows.
    func run(_ kind: SQLiteStatement.Kind) throws {
        try statement(kind).withReset { statement in
            while try statement.step() {}
        }
    }

    /// Prepares, runs and finalizes `sql`, which must have no parameters; rows are ignored.
    func execute(_ sql: String) throws {
        let statement = try SQLiteStatement(db: try live(), sql: sql, persistent: false)
        defer { statement.finalize() }
        try statement.withReset { statement in
            while try statement.step() {}
        }
    }

    /// Runs `sql` and returns column 0 of its first row as text, or `nil` without rows.
    func queryText(_ sql: String) throws -> String? {
        try queryFirstRow(sql) { statement in
            String(decoding: try statement.blob(at: 0), as: UTF8.self)
        }
    }

    /// Runs `sql` and returns column 0 of its first row as an integer, or `nil` without rows.
    func queryInteger(_ sql: String) throws -> Int64? {
        try queryFirstRow(sql) { statement in try statement.integer(at: 0) }
    }

    /// Prepares, runs and finalizes `sql`, reading its first row with `read`.
    private func queryFirstRow<T>(
        _ sql: String, _ read: (SQLiteStatement) throws -> T
    ) throws -> T? {
        let statement = try SQLiteStatement(db: try live(), sql: sql, persistent: false)
        defer { statement.finalize() }
        return try statement.withReset { statement in
            guard try statement.step() else { return nil }
            let value = try read(statement)
            while try statement.step() {}
            return value
        }
    }

    // MARK: Transactions

    /// Whether a transaction is open on the connection (`sqlite3_get_autocommit` is 0).
    ///
    /// SQLite rolls a transaction back by itself after some errors (`SQLITE_FULL`,
    /// `SQLITE_IOERR`, `SQLITE_BUSY`, `SQLITE_NOMEM`); transactions check this before every
    /// statement so nothing ever runs in autocommit mode by accident.
    var isInTransaction: Bool {
        guard let db else { return false }
        return sqlite3_get_autocommit(db) == 0
    }

    /// Starts a transaction: `BEGIN IMMEDIATE` (take the write lock now, waiting up to the
    /// busy timeout) or `BEGIN DEFERRED` (the snapshot starts at the first read).
    func begin(immediate: Bool) throws {
        if isInTransaction {
            // Left over from a failed rollback; clear it before starting afresh.
            try run(.rollback)
        }
        try run(immediate ? .beginImmediate : .begin)
    }

    /// Commits the open transaction.
    func commit() throws {
        try run(.commit)
    }

    /// Rolls back the open transaction, if SQLite has not already done so.
    ///
    /// Used on failure paths, where the error being reported is the one that matters; a
    /// failed rollback leaves the transaction open, and the next ``begin(immediate:)`` (or
    /// the pool, for a reader) deals with it.
    func rollbackAfterFailure() {
        guard isInTransaction else { return }
        do { try run(.rollback) } catch {}
    }
}
