import StratusBackend

/// Running read and write bodies in SQLite transactions.
extension SQLiteConnection {
    /// Runs `body` in a deferred transaction: its first read takes a snapshot that every later
    /// read of the body shares. Ends with `COMMIT` (a read-only commit only releases the
    /// snapshot), or `ROLLBACK` when `body` throws.
    func runRead<T>(_ body: (any BackendReadTransaction) throws -> T) throws -> T {
        try begin(immediate: false)
        let transaction = SQLiteReadTransaction(connection: self)
        return try finish(transaction) { try body($0) }
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction, which takes the database's write lock
    /// first (waiting up to the busy timeout, then throwing `.busy`), so the body's reads and
    /// writes are serialized with every other writer, in this process or another. Commits,
    /// or rolls back and rethrows when `body` throws or the commit fails.
    func runWrite<T>(_ body: (any BackendWriteTransaction) throws -> T) throws -> T {
        try begin(immediate: true)
        let transaction = SQLiteWriteTransaction(connection: self)
        return try finish(transaction) { try body($0) }
    }

    private func finish<Transaction: SQLiteReadTransaction, T>(
        _ transaction: Transaction, _ body: (Transaction) throws -> T
    ) throws -> T {
        let result: T
        do {
            result = try body(transaction)
        } catch {
            transaction.invalidate()
            rollbackAfterFailure()
            throw error
        }
        transaction.invalidate()
        do {
            guard isInTransaction else {
                // The body caught an error after which SQLite rolled the transaction back.
                throw BackendError(
                    .internal,
                    "SQLite: the transaction was rolled back after an error inside the body; nothing was committed")
            }
            try commit()
        } catch {
            rollbackAfterFailure()
            throw error
        }
        return result
    }
}
