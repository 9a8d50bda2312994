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
        let results = try state.run(before + [try scanStatement(ScanRequest(range, limit: limit, reverse: reverse))])
        return pairs(of: results[results.count - 1])
    }

    /// The statement of one scan.
    private func scanStatement(_ scan: ScanRequest) throws -> PostgreSQLStatement {
        guard scan.limit >= 1 else {
            throw BackendError(.invalidArgument, "PostgreSQL: a scan limit must be at least 1, got \(scan.limit)")
        }
        let order = scan.reverse ? "DESC" : "ASC"
        return PostgreSQLStatement(
            "SELECT key, value FROM \(table) WHERE key >= $1 AND key < $2 ORDER BY key \(order) LIMIT $3",
            [.bytea(scan.range.lowerBound), .bytea(scan.range.upperBound), .int8(Int64(scan.limit))])
    }

    /// The key-value pairs of a scan's result.
    private func pairs(of result: PostgreSQLResult) -> [KeyValuePair] {
        (0..<result.rowCount).map {
            KeyValuePair(key: result.bytes(row: $0, column: 0) ?? [], value: result.bytes(row: $0, column: 1) ?? [])
        }
    }

    /// The statement that reads many keys in one query.
    private func getManyStatement(_ keys: [[UInt8]]) -> PostgreSQLStatement {
        PostgreSQLStatement("SELECT key, value FROM \(table) WHERE key = ANY($1)", [.byteaArray(keys)])
    }

    /// The rows of a ``getManyStatement(_:)`` result, by key.
    private func rows(of result: PostgreSQLResult) -> [[UInt8]: [UInt8]] {
        var found: [[UInt8]: [UInt8]] = [:]
        for row in 0..<result.rowCount {
            found[result.bytes(row: row, column: 0) ?? []] = result.bytes(row: row, column: 1) ?? []
        }
        return found
    }

    /// Reads `keys` and `scans` in one round trip (after `before`): the rows found by key, and
    /// each scan's pairs (an empty range's without asking the server).
    func serverRead(
        _ keys: [[UInt8]], _ scans: [ScanRequest], before: [PostgreSQLStatement] = []
    ) throws -> (found: [[UInt8]: [UInt8]], scans: [[KeyValuePair]]) {
        for scan in scans where scan.limit < 1 { _ = try scanStatement(scan) }
        let asked = scans.filter { !$0.range.isEmpty }
        var statements = before
        if !keys.isEmpty { statements.append(getManyStatement(keys)) }
        statements += try asked.map(scanStatement)
        if statements.isEmpty { return ([:], scans.map { _ in [] }) }
        let results = try state.run(statements)
        var next = results.count - asked.count
        let found = keys.isEmpty ? [:] : rows(of: results[next - 1])
        let pairsByScan = scans.map { scan -> [KeyValuePair] in
            guard !scan.range.isEmpty else { return [] }
            defer { next += 1 }
            return pairs(of: results[next])
        }
        return (found, pairsByScan)
    }

    /// Reads many keys from the server in one query.
    func serverGetMany(_ keys: [[UInt8]]) throws -> [[UInt8]: [UInt8]] {
        guard !keys.isEmpty else { return [:] }
        return rows(of: try state.run([getManyStatement(keys)]).last!)
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

    func getMany(_ keys: [[UInt8]], scanning scans: [ScanRequest]) throws -> BatchedReads {
        let read = try serverRead(keys, scans)
        return BatchedReads(values: keys.map { read.found[$0] }, scans: read.scans)
    }
}
