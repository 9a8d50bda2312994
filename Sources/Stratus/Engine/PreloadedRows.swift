import StratusBackend

/// Rows a write reads before anything else — the database's meta row, its zones' rows, its
/// record types' schemas — fetched together in one `getMany`: one round trip on a server
/// backend instead of one per row (a one-record create on PostgreSQL read three rows in three
/// round trips before it).
///
/// Each row is handed out once, by ``take(_:_:)``; a key that was not preloaded, or asked
/// for again, is read from the transaction then. The body that preloads takes each row before
/// it writes that row, so what it takes is what the transaction would have read.
final class PreloadedRows {
    private var rows: [[UInt8]: [UInt8]?] = [:]

    /// Reads `keys` (duplicates allowed) in one `getMany`.
    init(_ keys: [[UInt8]], _ txn: any BackendReadTransaction) throws {
        let unique = Array(Set(keys))
        for (key, value) in zip(unique, try txn.getMany(unique)) { rows[key] = .some(value) }
    }

    /// The row at `key`: the preloaded one the first time, otherwise read from `txn`.
    func take(_ key: [UInt8], _ txn: any BackendReadTransaction) throws -> [UInt8]? {
        if let preloaded = rows.removeValue(forKey: key) { return preloaded }
        return try txn.get(key)
    }
}
