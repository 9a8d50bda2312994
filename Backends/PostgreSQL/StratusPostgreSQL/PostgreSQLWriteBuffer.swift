import StratusBackend

/// The writes of one write transaction not yet sent to the server.
///
/// Sets and clears are kept per key (the last one wins) and range clears in order; a range
/// clear drops the buffered point writes inside it. Flushed as a few multi-row statements —
/// range deletes first, then one `DELETE … = ANY($1)`, then one `INSERT … SELECT unnest(…)
/// ON CONFLICT DO UPDATE` — which is the order the body's writes take effect in: every point
/// write still buffered came after every buffered range clear that covers its key.
struct PostgreSQLWriteBuffer {
    /// Buffered point writes: a value to store, or `nil` to clear the key.
    private(set) var points: [[UInt8]: [UInt8]?] = [:]
    /// Buffered range clears, in order.
    private(set) var ranges: [KeyRange] = []
    /// Buffered signals (`pg_notify` channel and payload), in order; PostgreSQL delivers them
    /// only when the transaction commits.
    private(set) var signals: [(channel: String, payload: String)] = []

    var isEmpty: Bool { points.isEmpty && ranges.isEmpty && signals.isEmpty }

    mutating func set(_ key: [UInt8], _ value: [UInt8]) { points[key] = .some(value) }

    mutating func clear(_ key: [UInt8]) { points[key] = .some(nil) }

    mutating func signal(channel: String, payload: String) { signals.append((channel, payload)) }

    mutating func clearRange(_ range: KeyRange) {
        guard !range.isEmpty else { return }
        points = points.filter { !range.contains($0.key) }
        ranges.append(range)
    }

    /// What the buffer says about `key`: `.some(value)` (a value or `nil` for cleared) when a
    /// buffered write decides it, `nil` when the server's state does.
    func lookup(_ key: [UInt8]) -> [UInt8]?? {
        if let point = points[key] { return .some(point) }
        if ranges.contains(where: { $0.contains(key) }) { return .some(nil) }
        return nil
    }

    /// Whether a scan of `range` could see a buffered write.
    func overlaps(_ range: KeyRange) -> Bool {
        if ranges.contains(where: {
            KeyRange.less($0.lowerBound, range.upperBound) && KeyRange.less(range.lowerBound, $0.upperBound)
        }) {
            return true
        }
        return points.keys.contains { range.contains($0) }
    }

    /// The statements that apply the buffer, against `table` (a quoted, qualified name).
    func statements(table: String) -> [PostgreSQLStatement] {
        var statements = ranges.map {
            PostgreSQLStatement(
                "DELETE FROM \(table) WHERE key >= $1 AND key < $2", [.bytea($0.lowerBound), .bytea($0.upperBound)])
        }
        let clears = points.compactMap { $0.value == nil ? $0.key : nil }
        if !clears.isEmpty {
            statements.append(PostgreSQLStatement("DELETE FROM \(table) WHERE key = ANY($1)", [.byteaArray(clears)]))
        }
        var keys: [[UInt8]] = []
        var values: [[UInt8]] = []
        for (key, value) in points {
            guard let value else { continue }
            keys.append(key)
            values.append(value)
        }
        if !keys.isEmpty {
            statements.append(
                PostgreSQLStatement(
                    "INSERT INTO \(table) (key, value) SELECT * FROM unnest($1::bytea[], $2::bytea[]) "
                        + "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                    [.byteaArray(keys), .byteaArray(values)]))
        }
        for signal in signals {
            statements.append(
                PostgreSQLStatement("SELECT pg_notify($1, $2)", [.text(signal.channel), .text(signal.payload)]))
        }
        return statements
    }

    mutating func removeAll() {
        points.removeAll()
        ranges.removeAll()
        signals.removeAll()
    }
}
