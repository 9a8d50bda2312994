import StratusBackend

/// Rows a write reads before anything else — the database's meta row, its zones' rows, its
/// record types' schemas, the pointers of its records when their zone's number is known
/// (``ZoneNumberHints``), and the first page of the subscriptions its commit fires — fetched
/// together in one `getMany(_:scanning:)`: one round trip on a server backend instead of one
/// per row (a one-record create on PostgreSQL read its rows in four round trips before it).
///
/// Each row and scan is handed out once, by ``take(_:_:)``, ``takeMany(_:_:)`` and
/// ``takeScan(_:limit:)``; a key that was not preloaded, or asked for again, is read from the
/// transaction then. The body that preloads takes each row before it writes that row (and each
/// scan before it writes into its range), so what it takes is what the transaction would have
/// read.
final class PreloadedRows {
    private var rows: [[UInt8]: [UInt8]?] = [:]
    private var scans: [ScanRequest: [KeyValuePair]] = [:]

    /// Reads `keys` (duplicates allowed) and `scans` in one call.
    init(_ keys: [[UInt8]], scans: [ScanRequest] = [], _ txn: any BackendReadTransaction) throws {
        let unique = Array(Set(keys))
        if scans.isEmpty {
            for (key, value) in zip(unique, try txn.getMany(unique)) { rows[key] = .some(value) }
            return
        }
        let read = try txn.getMany(unique, scanning: scans)
        for (key, value) in zip(unique, read.values) { rows[key] = .some(value) }
        for (scan, pairs) in zip(scans, read.scans) { self.scans[scan] = pairs }
    }

    /// The row at `key`: the preloaded one the first time, otherwise read from `txn`.
    func take(_ key: [UInt8], _ txn: any BackendReadTransaction) throws -> [UInt8]? {
        if let preloaded = rows.removeValue(forKey: key) { return preloaded }
        return try txn.get(key)
    }

    /// The rows at `keys`, in order: the preloaded ones, and the others read from `txn` in one
    /// `getMany`.
    func takeMany(_ keys: [[UInt8]], _ txn: any BackendReadTransaction) throws -> [[UInt8]?] {
        var values: [[UInt8]?] = []
        values.reserveCapacity(keys.count)
        var missing: [Int] = []
        for (index, key) in keys.enumerated() {
            if let preloaded = rows.removeValue(forKey: key) {
                values.append(preloaded)
            } else {
                values.append(nil)
                missing.append(index)
            }
        }
        guard !missing.isEmpty else { return values }
        for (index, value) in zip(missing, try txn.getMany(missing.map { keys[$0] })) { values[index] = value }
        return values
    }

    /// The preloaded pairs of a forward scan of `range` with `limit`, the first time; `nil` when
    /// it was not preloaded.
    func takeScan(_ range: KeyRange, limit: Int) -> [KeyValuePair]? {
        scans.removeValue(forKey: ScanRequest(range, limit: limit))
    }
}
