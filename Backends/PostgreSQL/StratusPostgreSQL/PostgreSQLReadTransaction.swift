import StratusBackend

/// The transaction object a read body receives: reads inside one `REPEATABLE READ READ ONLY`
/// transaction, so every read sees the snapshot taken at the body's first read.
///
/// Valid only inside its body: afterwards every call throws.
class PostgreSQLReadTransaction: BackendReadTransaction {
    let state: PostgreSQLTransactionState

    init(state: PostgreSQLTransactionState) {
        self.state = state
    }

    var table: String { state.schema.table }

    /// Reads from the server (in a write transaction: after any flush the read needs).
    func serverGet(_ key: [UInt8], before: [PostgreSQLStatement] = []) throws -> [UInt8]? {
        let results = try state.run(
            before + [PostgreSQLStatement("SELECT value FROM \(table) WHERE key = $1", [.bytea(key)])])
        let result = results[results.count - 1]
        return result.rowCount == 0 ? nil : result.bytes(row: 0, column: 0) ?? []
    }

    func serverScan(
        _ range: KeyRange, limit: Int, reverse: Bool, before: [PostgreSQLStatement] = []
    ) throws -> [KeyValuePair] {
        guard limit >= 1 else {
            throw BackendError(.invalidArgument, "PostgreSQL: a scan limit must be at least 1, got \(limit)")
        }
        let order = reverse ? "DESC" : "ASC"
        let results = try state.run(
            before + [
                PostgreSQLStatement(
                    "SELECT key, value FROM \(table) WHERE key >= $1 AND key < $2 ORDER BY key \(order) LIMIT $3",
                    [.bytea(range.lowerBound), .bytea(range.upperBound), .int8(Int64(limit))])
            ])
        let result = results[results.count - 1]
        return (0..<result.rowCount).map {
            KeyValuePair(key: result.bytes(row: $0, column: 0) ?? [], value: result.bytes(row: $0, column: 1) ?? [])
        }
    }

    /// Reads many keys from the server in one query.
    func serverGetMany(_ keys: [[UInt8]]) throws -> [[UInt8]: [UInt8]] {
        guard !keys.isEmpty else { return [:] }
        let results = try state.run([
            PostgreSQLStatement("SELECT key, value FROM \(table) WHERE key = ANY($1)", [.byteaArray(keys)])
        ])
        let result = results[results.count - 1]
        var found: [[UInt8]: [UInt8]] = [:]
        for row in 0..<result.rowCount {
            found[result.bytes(row: row, column: 0) ?? []] = result.bytes(row: row, column: 1) ?? []
        }
        return found
    }

    func get(_ key: [UInt8]) throws -> [UInt8]? {
        try serverGet(key)
    }

    func getMany(_ keys: [[UInt8]]) throws -> [[UInt8]?] {
        let found = try serverGetMany(keys)
        return keys.map { found[$0] }
    }

    func scan(_ range: KeyRange, limit: Int, reverse: Bool) throws -> [KeyValuePair] {
        if range.isEmpty, limit >= 1 { return [] }
        return try serverScan(range, limit: limit, reverse: reverse)
    }
}
