import StratusBackend

/// The state of one transaction on one connection, shared by the read and write transaction
/// objects: the `BEGIN` is sent with the first statement (same round trip), the first failure
/// is remembered so the backend reports it even if the body caught it, and the object refuses
/// use outside its body.
final class PostgreSQLTransactionState {
    let connection: PostgreSQLConnection
    let schema: PostgreSQLSchema
    private let beginSQL: String
    private(set) var hasBegun = false
    private(set) var isActive = true
    /// The first failure of a statement; the transaction is dead after it.
    private(set) var failure: BackendError?
    /// Whether the failure came with the connection lost before any `COMMIT` was sent (so
    /// nothing was applied and the body may run again on a new connection).
    private(set) var lostBeforeCommit = false

    init(connection: PostgreSQLConnection, schema: PostgreSQLSchema, begin: String) {
        self.connection = connection
        self.schema = schema
        self.beginSQL = begin
    }

    func invalidate() { isActive = false }

    /// Runs `statements` (after `BEGIN`, if not yet sent), in one round trip; returns the
    /// results of `statements` only.
    func run(_ statements: [PostgreSQLStatement], committing: Bool = false) throws -> [PostgreSQLResult] {
        guard isActive else {
            throw BackendError(.internal, "PostgreSQL: a transaction object was used outside its body")
        }
        if let failure { throw failure }
        var list = statements
        let prefix = hasBegun ? 0 : 1
        if !hasBegun { list.insert(PostgreSQLStatement(beginSQL), at: 0) }
        if committing { list.append(PostgreSQLStatement("COMMIT")) }
        do {
            let results = try connection.run(list)
            hasBegun = true
            return Array(results[prefix..<(prefix + statements.count)])
        } catch let error as BackendError {
            hasBegun = true
            failure = error
            if connection.isBroken {
                // Known not committed: no COMMIT was sent, or a statement before it failed.
                let commitIndex = list.count - 1
                let failedBeforeCommit = connection.failedStatementIndex.map { $0 < commitIndex } ?? false
                lostBeforeCommit = !committing || failedBeforeCommit
                if committing && !failedBeforeCommit {
                    failure = BackendError(
                        .unavailable,
                        "PostgreSQL: the connection was lost while committing; the transaction may or may not have been applied",
                        nativeCode: error.nativeCode)
                }
            }
            throw failure!
        }
    }

    /// Ends a read-only transaction whose reads all succeeded: its `COMMIT` is sent without
    /// waiting for the answer (``PostgreSQLConnection/commitLater()``).
    func commitLater() {
        invalidate()
        connection.commitLater()
    }

    /// Ends a transaction whose body failed: `ROLLBACK` if one is open on a live connection.
    func rollback() {
        invalidate()
        guard hasBegun, !connection.isBroken else { return }
        _ = try? connection.run([PostgreSQLStatement("ROLLBACK")])
        if !connection.isReusable { connection.close() }
    }
}
