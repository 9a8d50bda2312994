import Dispatch
import StratusBackend
import Synchronization

/// The reader connections of a file store.
///
/// A read transaction checks a connection out, runs on it alone, and checks it back in. At
/// most `capacity` connections exist; they are opened on first need and kept idle for reuse.
/// When all are checked out, the next reader waits for one (a counting semaphore).
final class SQLiteConnectionPool: Sendable {
    private struct State {
        var idle: [SQLiteConnection] = []
        var isClosed = false
    }

    private let state = Mutex(State())
    /// One permit per connection that may be checked out.
    private let permits: DispatchSemaphore
    private let open: @Sendable () throws -> SQLiteConnection

    /// A pool of at most `capacity` connections made by `open`.
    init(capacity: Int, open: @escaping @Sendable () throws -> SQLiteConnection) {
        permits = DispatchSemaphore(value: capacity)
        self.open = open
    }

    /// Runs `body` with a connection of its own.
    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        let result: T
        do {
            result = try body(connection)
        } catch {
            checkIn(connection)
            throw error
        }
        checkIn(connection)
        return result
    }

    private func checkOut() throws -> SQLiteConnection {
        if state.withLock({ $0.isClosed }) { throw SQLiteBackend.closedError }
        permits.wait()
        let reused = state.withLock { state -> Result<SQLiteConnection?, BackendError> in
            if state.isClosed { return .failure(SQLiteBackend.closedError) }
            return .success(state.idle.popLast())
        }
        do {
            if let connection = try reused.get() { return connection }
            return try open()
        } catch {
            permits.signal()
            throw error
        }
    }

    private func checkIn(_ connection: SQLiteConnection) {
        // A connection still in a transaction (its rollback failed) is not reused.
        let keep = !connection.isInTransaction
        let discard = state.withLock { state -> Bool in
            guard keep, !state.isClosed else { return true }
            state.idle.append(connection)
            return false
        }
        if discard {
            // Nobody can report this close's failure; the connection is dropped either way and
            // its deinit releases whatever close could not.
            try? connection.close()
        }
        permits.signal()
    }

    /// Closes the idle connections and makes later check-outs throw `.closed`. Connections
    /// checked out now are closed when they come back. Calling it again does nothing.
    func close() throws {
        let idle = state.withLock { state -> [SQLiteConnection] in
            state.isClosed = true
            defer { state.idle.removeAll() }
            return state.idle
        }
        var firstError: (any Error)?
        for connection in idle {
            do { try connection.close() } catch { firstError = firstError ?? error }
        }
        if let firstError { throw firstError }
    }
}
