import Foundation
import StratusBackend
import StratusCSQLite
import Testing

@testable import StratusSQLite

/// Opening the writer connection while another connection holds the file's write lock.
///
/// `PRAGMA journal_mode=WAL` on a file in rollback mode needs an exclusive lock. While another
/// connection holds the reserved lock of a write transaction, SQLite answers `SQLITE_BUSY` at
/// once, without calling the busy handler (waiting could deadlock two writers). Two processes
/// opening one new store at once meet this; the connection retries within its busy timeout.
@Suite("SQLite opening a locked file")
struct SQLiteOpenLockTests {
    @Test func theWriterWaitsForAnotherConnectionsWriteLockWithinTheBusyTimeout() throws {
        try withSQLiteStorage { storage in
            let holder = try LockHolder(path: storage.path, holdFor: .milliseconds(300))
            let started = ContinuousClock.now
            let connection = try SQLiteConnection(
                path: storage.path, role: .writer,
                configuration: .init(location: .file(path: storage.path), busyTimeout: .seconds(5)))
            let waited = ContinuousClock.now - started
            try holder.join()
            #expect(try connection.queryText("PRAGMA journal_mode")?.lowercased() == "wal")
            #expect(waited >= .milliseconds(200), "opened after \(waited), while the lock was held")
            try connection.close()
        }
    }

    @Test func aLockHeldLongerThanTheBusyTimeoutFailsWithBusy() throws {
        try withSQLiteStorage { storage in
            let holder = try LockHolder(path: storage.path, holdFor: .seconds(2))
            let started = ContinuousClock.now
            let error = #expect(throws: BackendError.self) {
                _ = try SQLiteConnection(
                    path: storage.path, role: .writer,
                    configuration: .init(
                        location: .file(path: storage.path), busyTimeout: .milliseconds(200)))
            }
            let waited = ContinuousClock.now - started
            try holder.join()
            #expect(error?.code == .busy)
            #expect(waited >= .milliseconds(150), "gave up after \(waited)")
            #expect(waited < .seconds(2), "waited for the lock beyond the busy timeout: \(waited)")
        }
    }
}

/// A raw connection, on a thread of its own, that makes `path` a rollback-journal database and
/// holds its reserved lock (an open `BEGIN IMMEDIATE` with one insert) for a while.
private final class LockHolder: Sendable {
    private let thread: TestThread<Void>

    /// Returns once the lock is held.
    init(path: String, holdFor duration: Duration) throws {
        let locked = DispatchSemaphore(value: 0)
        thread = TestThread {
            var db: OpaquePointer?
            defer { sqlite3_close_v2(db) }
            defer { locked.signal() }  // never leave the test waiting, even on failure
            guard sqlite3_open(path, &db) == SQLITE_OK else { throw LockHolderError.failed("open") }
            for sql in ["CREATE TABLE t(x)", "BEGIN IMMEDIATE", "INSERT INTO t VALUES (1)"] {
                guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
                    throw LockHolderError.failed(sql)
                }
            }
            locked.signal()
            Thread.sleep(
                forTimeInterval: Double(duration.components.seconds)
                    + Double(duration.components.attoseconds) / 1e18)
            guard sqlite3_exec(db, "COMMIT", nil, nil, nil) == SQLITE_OK else {
                throw LockHolderError.failed("COMMIT")
            }
        }
        locked.wait()
    }

    func join() throws { try thread.join() }
}

private enum LockHolderError: Error {
    case failed(String)
}
