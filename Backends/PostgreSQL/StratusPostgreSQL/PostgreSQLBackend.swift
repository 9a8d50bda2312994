public import StratusBackend

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``DatabaseBackend`` on PostgreSQL: many Stratus processes sharing one server.
///
/// The store is one table in one schema, `kv (key bytea PRIMARY KEY, value bytea NOT NULL)`,
/// created and migrated by the backend (``Configuration-swift.struct/schema``).
///
/// ```swift
/// let backend = try PostgreSQLBackend(
///     configuration: .init(host: "db.internal", user: "stratus", database: "app"))
/// try backend.write { try $0.set([1], [42]) }
/// try backend.close()
/// ```
///
/// ## Transactions
/// - A write body runs in a `SERIALIZABLE` transaction. Its writes are buffered and sent as
///   multi-row statements together with the `COMMIT` (or with a scan that must see them), so
///   a body costs one round trip per read plus one. A serialization failure or deadlock
///   (SQLSTATE `40001`, `40P01`) throws ``BackendError/Code-swift.struct/conflict`` with
///   nothing applied, and the engine runs the body again.
/// - A read body runs in a `REPEATABLE READ READ ONLY` transaction: one snapshot, taken at
///   its first read, that never blocks and never fails to serialize.
/// - The `BEGIN` travels with the first statement, in the same round trip.
///
/// ## Connections
/// At most ``Configuration-swift.struct/poolSize`` connections, opened on demand. A connection
/// that breaks is dropped with every idle one, and the next transaction connects afresh, so
/// the backend recovers from a server restart without being reopened. A body interrupted by a
/// lost connection before its `COMMIT` was sent is run again on a new connection (twice at
/// most); after that, or when the server cannot be reached, it fails with
/// ``BackendError/Code-swift.struct/unavailable``. A write whose connection is lost while its
/// `COMMIT` was on its way fails with `unavailable` too: the outcome is unknown, and it is never
/// retried here. A read whose connection is lost at its `COMMIT` returns what it read: a
/// read-only transaction commits nothing, and its reads came whole from one snapshot.
///
/// See `Docs/Backends/PostgreSQL.md`.
public final class PostgreSQLBackend: DatabaseBackend {
    /// The configuration the backend was opened with.
    public let configuration: Configuration
    private let schema: PostgreSQLSchema
    private let pool: PostgreSQLConnectionPool
    private let counter = RoundTripCounter()
    let connectionLog: PostgreSQLConnectionLog
    /// How many times a body interrupted by a lost connection is run in all.
    private static let maximumAttempts = 3

    /// Where the backend logs: `store opened` at info level, lost connections and reconnects
    /// at warning level, a transaction that gives up at error level (`Docs/Logging.md`).
    public var logger: Logger { connectionLog.logger }

    /// The server settings each pooled connection starts with, sent with the connection's
    /// startup (libpq's `options`, after whatever `PGOPTIONS` holds, which an explicit
    /// `options` would otherwise replace): no round trip of their own, and nothing that can
    /// fail between connecting and the first transaction.
    ///
    /// `plan_cache_mode=force_generic_plan`: the backend's statements are a handful of
    /// key-bounded reads and writes on the primary key, prepared once per connection, whose
    /// best plan is the same index scan for any parameters. PostgreSQL's default (`auto`)
    /// planned some of them again at every execution: with an array parameter (`key = ANY($1)`)
    /// it judges the generic plan costlier than the custom ones and keeps making custom plans.
    /// Measured on a one-record create over stratusd (Docs/Performance.md, 2026-11-28): about
    /// 25 µs less server CPU per create, of about 320. Like any startup option it takes
    /// precedence over a `plan_cache_mode` set in `postgresql.conf` or by `ALTER ROLE`.
    package static func sessionOptions(environment: String?) -> String {
        let own = "-c plan_cache_mode=force_generic_plan"
        guard let environment, !environment.allSatisfy(\.isWhitespace) else { return own }
        return environment + " " + own
    }

    /// Runs `body` with one of the pool's connections, as a transaction would get it: for tests
    /// that look at the session's state.
    package func withPooledConnection<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try pool.withConnection(body)
    }

    /// The network round trips this backend's connections made so far.
    package var roundTrips: Int { counter.count.load(ordering: .relaxed) }

    /// Connects, creates or migrates the store's schema, and keeps that connection in the pool.
    ///
    /// - Throws: ``BackendError`` — ``BackendError/Code-swift.struct/unavailable`` when the
    ///   server cannot be reached, ``BackendError/Code-swift.struct/invalidArgument`` for a bad
    ///   configuration or a store of a newer format.
    ///
    /// - Parameters:
    ///   - configuration: the server, credentials and schema.
    ///   - logger: where the backend logs; never the password. Defaults to
    ///     `Logger(label: "stratus.postgresql")`, which goes to the `LoggingSystem` the app
    ///     bootstrapped.
    public init(configuration: Configuration, logger: Logger = Logger(label: "stratus.postgresql")) throws {
        guard configuration.poolSize >= 1 else {
            throw BackendError(
                .invalidArgument, "PostgreSQL: poolSize must be at least 1, got \(configuration.poolSize)")
        }
        let schema = try PostgreSQLSchema(name: configuration.schema)
        let parameters =
            configuration.connectionParameters + [
                ("options", Self.sessionOptions(environment: getenv("PGOPTIONS").map { String(cString: $0) }))
            ]
        let redact = [configuration.password].compactMap { $0 }
        self.configuration = configuration
        self.schema = schema
        let counter = self.counter
        let connectionLog = PostgreSQLConnectionLog(logger: logger, location: configuration.url)
        self.connectionLog = connectionLog
        pool = PostgreSQLConnectionPool(capacity: configuration.poolSize, waitLimit: configuration.poolWaitLimit) {
            do {
                let connection = try PostgreSQLConnection(parameters: parameters, redact: redact, counter: counter)
                connectionLog.connected()
                return connection
            } catch {
                connectionLog.cannotConnect(error)
                throw error
            }
        }
        try pool.withConnection { try schema.prepare($0) }
        connectionLog.logger.info("store opened", metadata: ["stratus.postgresql.schema": "\(configuration.schema)"])
    }

    /// Runs `body` over one snapshot of the store. A connection lost before the body's last
    /// read completed runs the body again on a new connection (twice at most). The `COMMIT` of
    /// a read whose reads all succeeded is sent without waiting for its answer (a read-only
    /// transaction has nothing to commit, and everything the body read came whole from its
    /// snapshot): the connection's next user reads it, and a connection lost meanwhile is
    /// replaced then.
    ///
    /// - Throws: what `body` throws, or a ``BackendError``.
    public func read<T>(_ body: (any BackendReadTransaction) throws -> T) throws -> T {
        try run(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { state in
            let transaction = PostgreSQLReadTransaction(state: state)
            let result = try body(transaction)
            if state.hasBegun {
                // Whether every read succeeded (a body may have caught a failure).
                if state.failure == nil {
                    state.commitLater()
                } else {
                    _ = try state.run([], committing: true)
                }
            }
            return result
        }
    }

    /// Runs `body` in a serializable transaction and commits it durably.
    ///
    /// - Throws: what `body` throws (nothing applied), or a ``BackendError``:
    ///   ``BackendError/Code-swift.struct/conflict`` (nothing applied; run it again),
    ///   ``BackendError/Code-swift.struct/unavailable`` (the server cannot be reached, or the
    ///   connection was lost during the commit), ``BackendError/Code-swift.struct/closed``.
    public func write<T>(_ body: (any BackendWriteTransaction) throws -> T) throws -> T {
        let begin =
            configuration.writeIsolation == .serializable
            ? "BEGIN ISOLATION LEVEL SERIALIZABLE" : "BEGIN ISOLATION LEVEL READ COMMITTED"
        return try run(begin: begin) { state in
            let transaction = PostgreSQLWriteTransaction(state: state)
            transaction.notifyChannel = { [schema] in Self.notifyChannel($0, schema: schema.name) }
            let result = try body(transaction)
            try transaction.commit()
            return result
        }
    }

    /// Closes the idle connections; connections in use close when their transaction ends.
    /// Later calls throw ``BackendError/Code-swift.struct/closed``. Calling it again does
    /// nothing.
    public func close() throws {
        pool.close()
    }

    /// Runs `work` in a transaction on a pooled connection, running it again on a new
    /// connection when the connection was lost before anything could have been committed.
    private func run<T>(begin: String, _ work: (PostgreSQLTransactionState) throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            var lostConnection = false
            let outcome: Result<T, any Error> = try pool.withConnection { connection in
                defer { lostConnection = connection.isBroken }
                let state = PostgreSQLTransactionState(connection: connection, schema: schema, begin: begin)
                do {
                    let result = try work(state)
                    state.invalidate()
                    return .success(result)
                } catch {
                    state.rollback()
                    // A failure of the transaction itself wins over what the body made of it.
                    if let failure = state.failure {
                        if state.lostBeforeCommit && attempt < Self.maximumAttempts { return .failure(Retry()) }
                        return .failure(failure)
                    }
                    return .failure(error)
                }
            }
            // What broke this connection (a restart) most likely broke the idle ones too.
            if lostConnection {
                pool.discardIdle()
                connectionLog.connectionLost(
                    attempt: attempt, maximumAttempts: Self.maximumAttempts, retrying: outcome.isRetry,
                    failed: outcome.isFailure && !outcome.isRetry)
            }
            if case .failure(let error) = outcome, error is Retry { continue }
            return try outcome.get()
        }
    }

    fileprivate struct Retry: Error {}

    static let closedError = BackendError(.closed, "PostgreSQL: the backend is closed")
}

extension Result {
    /// Whether this is the failure that runs a transaction again on a new connection.
    fileprivate var isRetry: Bool {
        if case .failure(let error) = self { return error is PostgreSQLBackend.Retry }
        return false
    }

    /// Whether this is a failure.
    fileprivate var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
