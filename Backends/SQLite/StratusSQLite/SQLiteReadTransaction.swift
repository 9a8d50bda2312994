import StratusBackend

/// The transaction object a read body receives: reads on one connection inside one SQLite
/// transaction, so every read sees the same snapshot.
///
/// Valid only inside its body: afterwards every call throws.
class SQLiteReadTransaction: BackendReadTransaction {
    let connection: SQLiteConnection
    private var isActive = true

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Ends the transaction object's life; later calls throw.
    final func invalidate() { isActive = false }

    /// The connection, if this transaction may still use it.
    ///
    /// Throws when the object escaped its body, or when SQLite rolled the transaction back
    /// after an error the body caught (then a statement would run in autocommit mode, outside
    /// the snapshot or the atomic write).
    final func usableConnection() throws -> SQLiteConnection {
        guard isActive else {
            throw BackendError(.internal, "SQLite: a transaction object was used outside its body")
        }
        guard connection.isInTransaction else {
            throw BackendError(
                .internal,
                "SQLite: the transaction was rolled back after an earlier error; it cannot be used further")
        }
        return connection
    }

    final func get(_ key: [UInt8]) throws -> [UInt8]? {
        try usableConnection().get(key)
    }

    final func scan(_ range: KeyRange, limit: Int, reverse: Bool) throws -> [KeyValuePair] {
        try usableConnection().scan(range, limit: limit, reverse: reverse)
    }

    final func scan(
        _ range: KeyRange, limit: Int, reverse: Bool,
        lending body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try usableConnection().scan(range, limit: limit, reverse: reverse, lending: body)
    }
}
