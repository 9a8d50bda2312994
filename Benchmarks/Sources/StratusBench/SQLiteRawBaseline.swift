import Foundation
import StratusBenchCSQLite

/// SQLite through its C API, configured as the backend configures its file stores: WAL,
/// `synchronous=FULL`, one `kv(key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID` table.
/// One prepared `INSERT` per row in one transaction, then one prepared point `SELECT` per row
/// in one read transaction.
struct SQLiteRawBaseline {
    /// The database file; removed (with its WAL) before and after the run.
    let path: String

    /// A failure of the C API, with SQLite's message.
    struct Failure: Error, CustomStringConvertible {
        /// What failed.
        var description: String
    }

    /// Runs the inserts and the reads on a new file and returns their timings.
    func run(rows: Int, valueBytes: Int) throws -> RawBaseline {
        removeFiles()
        defer { removeFiles() }
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
            let db = handle
        else {
            sqlite3_close_v2(handle)
            throw Failure(description: "SQLite raw baseline: cannot open \(path)")
        }
        defer { sqlite3_close_v2(db) }
        try execute(db, "PRAGMA journal_mode=WAL")
        try execute(db, "PRAGMA synchronous=FULL")
        try execute(db, "CREATE TABLE kv(key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID")

        let keys = (0..<rows).map(RawData.key)
        let values = (0..<rows).map { RawData.value($0, bytes: valueBytes) }
        let inserting = try Timing.sample { try insert(db, keys: keys, values: values) }
        var bytesRead = 0
        let reading = try Timing.sample { bytesRead = try read(db, keys: keys) }
        guard bytesRead == rows * valueBytes else {
            throw Failure(description: "SQLite raw baseline: read \(bytesRead) bytes, expected \(rows * valueBytes)")
        }
        return RawBaseline(
            rows: rows, insert: inserting, read: reading, insertMethod: "prepared INSERT per row",
            readMethod: "prepared point SELECT per row")
    }

    private func insert(_ db: OpaquePointer, keys: [[UInt8]], values: [[UInt8]]) throws {
        let insert = try prepare(db, "INSERT INTO kv(key, value) VALUES (?, ?)")
        defer { sqlite3_finalize(insert) }
        try execute(db, "BEGIN IMMEDIATE")
        for (key, value) in zip(keys, values) {
            key.withUnsafeBytes { _ = sqlite3_bind_blob(insert, 1, $0.baseAddress, Int32($0.count), nil) }
            value.withUnsafeBytes { _ = sqlite3_bind_blob(insert, 2, $0.baseAddress, Int32($0.count), nil) }
            guard sqlite3_step(insert) == SQLITE_DONE else { throw failure(db, "INSERT") }
            sqlite3_reset(insert)
        }
        try execute(db, "COMMIT")
    }

    /// Reads every key back and copies each value out, as a caller must; returns the bytes read.
    private func read(_ db: OpaquePointer, keys: [[UInt8]]) throws -> Int {
        let select = try prepare(db, "SELECT value FROM kv WHERE key = ?")
        defer { sqlite3_finalize(select) }
        try execute(db, "BEGIN")
        var total = 0
        for key in keys {
            key.withUnsafeBytes { _ = sqlite3_bind_blob(select, 1, $0.baseAddress, Int32($0.count), nil) }
            guard sqlite3_step(select) == SQLITE_ROW else { throw failure(db, "SELECT") }
            let count = Int(sqlite3_column_bytes(select, 0))
            let value = [UInt8](UnsafeRawBufferPointer(start: sqlite3_column_blob(select, 0), count: count))
            total += value.count
            sqlite3_reset(select)
        }
        try execute(db, "COMMIT")
        return total
    }

    private func prepare(_ db: OpaquePointer, _ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw failure(db, sql)
        }
        return statement
    }

    private func execute(_ db: OpaquePointer, _ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw failure(db, sql) }
    }

    private func failure(_ db: OpaquePointer, _ what: String) -> Failure {
        Failure(description: "SQLite raw baseline: \(what): \(String(cString: sqlite3_errmsg(db)))")
    }

    private func removeFiles() {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}
