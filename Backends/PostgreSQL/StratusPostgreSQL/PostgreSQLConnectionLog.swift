import StratusBackend
import Synchronization

/// What a ``PostgreSQLBackend`` logs about its connections (`Docs/Logging.md`): lost
/// connections and the transactions run again after them at warning level, a transaction that
/// gives up at error level, and the first connection made after a loss (the reconnect) at
/// warning level, like a connection that cannot be made. Every line names the server by the configuration's password-free URL.
final class PostgreSQLConnectionLog: Sendable {
    /// The backend's logger, with the server's location as metadata.
    let logger: Logger
    /// Set when a connection was lost, until a new connection is made.
    private let lost = Atomic<Bool>(false)

    init(logger: Logger, location: BackendURL) {
        var logger = logger
        logger[metadataKey: LogKey.backend] = "postgresql"
        logger[metadataKey: LogKey.location] = "\(location)"
        self.logger = logger
    }

    /// A transaction's connection broke. `retrying` says whether the body runs again on a new
    /// connection; `failed` whether the transaction fails (rather than keeping a read's result).
    func connectionLost(attempt: Int, maximumAttempts: Int, retrying: Bool, failed: Bool) {
        lost.store(true, ordering: .relaxed)
        let metadata: Logger.Metadata = [
            LogKey.attempt: "\(attempt)", LogKey.maximumAttempts: "\(maximumAttempts)",
        ]
        if retrying {
            logger.warning(
                "PostgreSQL connection lost before the commit; reconnecting and running the transaction again",
                metadata: metadata)
        } else if failed {
            logger.error(
                "PostgreSQL connection lost; the transaction fails with unavailable (retries exhausted, or the commit was in flight)",
                metadata: metadata)
        } else {
            logger.warning(
                "PostgreSQL connection lost after the transaction's reads; its result stands, the next transaction reconnects",
                metadata: metadata)
        }
    }

    /// A connection could not be made (the server is down or refuses): the transaction fails
    /// with `error`'s code, `unavailable`. libpq's message is not logged.
    func cannotConnect(_ error: any Error) {
        let code = (error as? BackendError)?.code.description ?? "\(type(of: error))"
        logger.warning(
            "PostgreSQL cannot connect; the transaction fails", metadata: [LogKey.error: "\(code)"])
    }

    /// A new connection was made: after a loss, that is a reconnect.
    func connected() {
        if lost.exchange(false, ordering: .relaxed) {
            logger.warning("PostgreSQL reconnected after a lost connection")
        }
    }
}
