import Dispatch
import StratusBackend
import Synchronization

/// A backend's connections: at most `capacity` at once, opened on first need, kept idle for
/// reuse, and dropped when they break (the next transaction connects afresh: that is how the
/// backend reconnects after a dropped connection or a server restart).
final class PostgreSQLConnectionPool: Sendable {
    private struct State {
        var idle: [PostgreSQLConnection] = []
        var isClosed = false
    }

    private let state = Mutex(State())
    private let permits: DispatchSemaphore
    private let waitLimit: Duration
    private let connect: @Sendable () throws -> PostgreSQLConnection

    /// A pool of at most `capacity` connections made by `connect`; a transaction waits up to
    /// `waitLimit` for one to be free, then fails with `.busy`.
    init(capacity: Int, waitLimit: Duration, connect: @escaping @Sendable () throws -> PostgreSQLConnection) {
        permits = DispatchSemaphore(value: capacity)
        self.waitLimit = waitLimit
        self.connect = connect
    }

    /// Runs `body` with a connection of its own, and returns the connection to the pool if it
    /// is still idle and healthy (otherwise closes it).
    func withConnection<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    /// Closes every idle connection: after one connection was found broken, the others were
    /// most likely broken by the same event (a restart), so they are not tried one by one.
    func discardIdle() {
        let idle = state.withLock { state -> [PostgreSQLConnection] in
            defer { state.idle.removeAll() }
            return state.idle
        }
        for connection in idle { connection.close() }
    }

    private func checkOut() throws -> PostgreSQLConnection {
        if state.withLock({ $0.isClosed }) { throw PostgreSQLBackend.closedError }
        let (seconds, attoseconds) = waitLimit.components
        let nanoseconds = Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
        guard permits.wait(timeout: .now() + .nanoseconds(max(nanoseconds, 0))) == .success else {
            throw BackendError(
                .busy, "PostgreSQL: every pooled connection stayed in use for \(waitLimit); raise the pool size")
        }
        do {
            while true {
                let reused = state.withLock { state -> Result<PostgreSQLConnection?, BackendError> in
                    if state.isClosed { return .failure(PostgreSQLBackend.closedError) }
                    return .success(state.idle.popLast())
                }
                guard let connection = try reused.get() else { return try connect() }
                // A read's COMMIT sent without waiting is answered first; a connection that
                // failed meanwhile is closed and the next one tried.
                if connection.settle() { return connection }
                connection.close()
            }
        } catch {
            permits.signal()
            throw error
        }
    }

    private func checkIn(_ connection: PostgreSQLConnection) {
        let keep = connection.isReusable
        let discard = state.withLock { state -> Bool in
            guard keep, !state.isClosed else { return true }
            state.idle.append(connection)
            return false
        }
        if discard { connection.close() }
        permits.signal()
    }

    /// Closes the idle connections; connections in use close when they come back. Later
    /// check-outs throw `.closed`.
    func close() {
        let idle = state.withLock { state -> [PostgreSQLConnection] in
            state.isClosed = true
            defer { state.idle.removeAll() }
            return state.idle
        }
        for connection in idle { connection.close() }
    }
}
