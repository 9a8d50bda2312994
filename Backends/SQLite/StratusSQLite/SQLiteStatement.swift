import StratusBackend
import StratusCSQLite

/// One prepared statement (`sqlite3_stmt`), owned by the ``SQLiteConnection`` that prepared
/// it and used only by the thread currently using that connection.
///
/// `deinit` only finalizes. Bound blobs are copied by SQLite (`SQLITE_TRANSIENT`), so no Swift
/// buffer has to outlive a bind call, and ``withReset(_:)`` clears the bindings after every use
/// so large values are not kept alive in a cached statement.
final class SQLiteStatement {
    /// The statements a connection caches, each with its SQL.
    enum Kind: Hashable, CaseIterable {
        case begin, beginImmediate, commit, rollback
        case get, set, clear, clearRange, scanForward, scanReverse

        var sql: String {
            switch self {
            case .begin: return "BEGIN DEFERRED"
            case .beginImmediate: return "BEGIN IMMEDIATE"
            case .commit: return "COMMIT"
            case .rollback: return "ROLLBACK"
            case .get: return "SELECT value FROM kv WHERE key = ?1"
            case .set: return "INSERT OR REPLACE INTO kv(key, value) VALUES (?1, ?2)"
            case .clear: return "DELETE FROM kv WHERE key = ?1"
            case .clearRange: return "DELETE FROM kv WHERE key >= ?1 AND key < ?2"
            case .scanForward:
                return "SELECT key, value FROM kv WHERE key >= ?1 AND key < ?2 ORDER BY key ASC LIMIT ?3"
            case .scanReverse:
                return "SELECT key, value FROM kv WHERE key >= ?1 AND key < ?2 ORDER BY key DESC LIMIT ?3"
            }
        }
    }

    private var handle: OpaquePointer?
    /// The connection's handle, for error messages. The connection outlives its statements:
    /// it finalizes them before it closes.
    private let db: OpaquePointer

    /// Prepares `sql` on `db`; `persistent` hints SQLite that the statement is cached.
    init(db: OpaquePointer, sql: String, persistent: Bool) throws {
        self.db = db
        var statement: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let rc = sqlite3_prepare_v3(db, sql, -1, flags, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            // On failure SQLite sets `statement` to NULL; finalizing NULL is a harmless no-op.
            sqlite3_finalize(statement)
            throw SQLiteResultCode(rc).error("preparing a statement", db: db)
        }
        handle = statement
    }

    deinit {
        // The result of sqlite3_finalize repeats the statement's last step error, which was
        // already reported when that step ran.
        sqlite3_finalize(handle)
    }

    /// Finalizes the statement now; later uses throw. Called by the connection before it
    /// closes.
    func finalize() {
        // As in deinit, the result only repeats the last step's already-reported error.
        sqlite3_finalize(handle)
        handle = nil
    }

    private func live() throws -> OpaquePointer {
        guard let handle else {
            throw BackendError(.closed, "SQLite: the statement was finalized")
        }
        return handle
    }

    /// Binds `bytes` as a blob to parameter `index` (1-based). An empty array binds a
    /// zero-length blob, never NULL.
    func bind(_ bytes: [UInt8], at index: Int32) throws {
        let statement = try live()
        let rc: Int32
        if bytes.isEmpty {
            // sqlite3_bind_blob with a NULL pointer would bind NULL, not an empty blob.
            rc = sqlite3_bind_zeroblob(statement, index, 0)
        } else {
            rc = bytes.withUnsafeBytes { buffer in
                sqlite3_bind_blob64(
                    statement, index, buffer.baseAddress, sqlite3_uint64(buffer.count),
                    SQLiteStatement.transient)
            }
        }
        guard rc == SQLITE_OK else {
            throw SQLiteResultCode(rc).error("binding a \(bytes.count)-byte blob", db: db)
        }
    }

    /// Binds `value` as an integer to parameter `index` (1-based).
    func bind(_ value: Int64, at index: Int32) throws {
        let rc = sqlite3_bind_int64(try live(), index, sqlite3_int64(value))
        guard rc == SQLITE_OK else {
            throw SQLiteResultCode(rc).error("binding an integer", db: db)
        }
    }

    /// Runs the statement one step: `true` when a row is ready, `false` when it is done.
    func step() throws -> Bool {
        let rc = sqlite3_step(try live())
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteResultCode(rc).error("running \(sqlVerb)", db: db)
        }
    }

    /// The blob in column `column` (0-based) of the current row; `[]` for a zero-length blob.
    func blob(at column: Int32) throws -> [UInt8] {
        let statement = try live()
        // sqlite3_column_blob first, then sqlite3_column_bytes, as SQLite documents.
        guard let bytes = sqlite3_column_blob(statement, column) else {
            // NULL means a zero-length blob (or a NULL column), unless memory ran out.
            let rc = sqlite3_errcode(db)
            if rc == SQLITE_NOMEM { throw SQLiteResultCode(rc).error("reading a column", db: db) }
            return []
        }
        let count = Int(sqlite3_column_bytes(statement, column))
        return [UInt8](UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// The blob in column `column` (0-based) of the current row, as SQLite holds it: valid
    /// until the statement steps, is reset or is finalized, or the column is read otherwise.
    func lentBlob(at column: Int32) throws -> UnsafeRawBufferPointer {
        let statement = try live()
        guard let bytes = sqlite3_column_blob(statement, column) else {
            let rc = sqlite3_errcode(db)
            if rc == SQLITE_NOMEM { throw SQLiteResultCode(rc).error("reading a column", db: db) }
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, column)))
    }

    /// The integer in column `column` (0-based) of the current row.
    func integer(at column: Int32) throws -> Int64 {
        Int64(sqlite3_column_int64(try live(), column))
    }

    /// Runs `body` on the statement, then resets it and clears its bindings, checking both.
    ///
    /// When `body` throws, the statement is still reset, and the error of `body` is rethrown:
    /// the reset would only repeat the failed step's code.
    func withReset<T>(_ body: (SQLiteStatement) throws -> T) throws -> T {
        let statement = try live()
        let result: T
        do {
            result = try body(self)
        } catch {
            // The reset repeats the error just thrown; clear_bindings always succeeds.
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
            throw error
        }
        let rc = sqlite3_reset(statement)
        guard rc == SQLITE_OK else {
            sqlite3_clear_bindings(statement)
            throw SQLiteResultCode(rc).error("resetting \(sqlVerb)", db: db)
        }
        let cleared = sqlite3_clear_bindings(statement)
        guard cleared == SQLITE_OK else {
            throw SQLiteResultCode(cleared).error("clearing bindings", db: db)
        }
        return result
    }

    /// The first word of the statement's SQL, for error messages (never the bound values).
    private var sqlVerb: String {
        guard let handle, let sql = sqlite3_sql(handle) else { return "a statement" }
        let text = String(cString: sql)
        return "a " + (text.split(separator: " ").first.map(String.init) ?? "statement")
            + " statement"
    }

    /// `SQLITE_TRANSIENT`: the C macro `((sqlite3_destructor_type)-1)`, which Swift does not
    /// import. Tells SQLite to copy a bound buffer before the bind call returns.
    private static var transient: sqlite3_destructor_type {
        unsafeBitCast(-1 as Int, to: sqlite3_destructor_type.self)
    }
}
