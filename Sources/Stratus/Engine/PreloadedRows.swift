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
    /// Each preloaded key's position in ``values``, until it is taken.
    private var positions: [RowKey: Int] = [:]
    private var values: [[UInt8]?] = []
    private var scans: [ScanRequest: [KeyValuePair]] = [:]

    /// A key hashed as one run of bytes: `[UInt8]`'s own hashing feeds the hasher a byte at a
    /// time, several times the instructions for the 20-odd bytes of a record's key.
    private struct RowKey: Hashable {
        let bytes: [UInt8]

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// Reads `keys` (duplicates allowed) and `scans` in one call.
    init(_ keys: [[UInt8]], scans: [ScanRequest] = [], _ txn: any BackendReadTransaction) throws {
        let unique = deduplicated(keys)
        if scans.isEmpty {
            values = try txn.getMany(unique)
            return
        }
        let read = try txn.getMany(unique, scanning: scans)
        values = read.values
        for (scan, pairs) in zip(scans, read.scans) { self.scans[scan] = pairs }
    }

    /// `keys` without repeats, in order; each one's position goes to ``positions`` (one hash
    /// per key, no rehashing as the table grows).
    private func deduplicated(_ keys: [[UInt8]]) -> [[UInt8]] {
        positions.reserveCapacity(keys.count)
        var unique: [[UInt8]] = []
        unique.reserveCapacity(keys.count)
        func place(_ position: inout Int, _ key: [UInt8]) {
            guard position < 0 else { return }
            position = unique.count
            unique.append(key)
        }
        for key in keys { place(&positions[RowKey(bytes: key), default: -1], key) }
        return unique
    }

    /// The preloaded row at `key`, removed; `nil` when there is none (not preloaded, or taken).
    private func remove(_ key: [UInt8]) -> [UInt8]?? {
        guard let position = positions.removeValue(forKey: RowKey(bytes: key)) else { return nil }
        return .some(values[position])
    }

    /// The row at `key`: the preloaded one the first time, otherwise read from `txn`.
    func take(_ key: [UInt8], _ txn: any BackendReadTransaction) throws -> [UInt8]? {
        if let preloaded = remove(key) { return preloaded }
        return try txn.get(key)
    }

    /// The rows at `keys`, in order: the preloaded ones, and the others read from `txn` in one
    /// `getMany`.
    func takeMany(_ keys: [[UInt8]], _ txn: any BackendReadTransaction) throws -> [[UInt8]?] {
        var values: [[UInt8]?] = []
        values.reserveCapacity(keys.count)
        var missing: [Int] = []
        for (index, key) in keys.enumerated() {
            if let preloaded = remove(key) {
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
