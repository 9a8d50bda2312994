import StratusBackend

/// The key-value operations of the SPI, on the one table
/// `kv(key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID`.
///
/// SQLite compares BLOBs with `memcmp` and then by length, which is exactly the SPI's unsigned
/// lexicographic order, so `ORDER BY key` and `key >= ? AND key < ?` need no custom collation.
extension SQLiteConnection {
    /// The value under `key`, or `nil`.
    func get(_ key: [UInt8]) throws -> [UInt8]? {
        try statement(.get).withReset { statement in
            try statement.bind(key, at: 1)
            guard try statement.step() else { return nil }
            return try statement.blob(at: 0)
        }
    }

    /// Up to `limit` pairs of `range`, ascending or descending.
    func scan(_ range: KeyRange, limit: Int, reverse: Bool) throws -> [KeyValuePair] {
        guard limit >= 1 else {
            throw BackendError(.invalidArgument, "SQLite: a scan limit must be at least 1, got \(limit)")
        }
        if range.isEmpty { return [] }
        return try statement(reverse ? .scanReverse : .scanForward).withReset { statement in
            try statement.bind(range.lowerBound, at: 1)
            try statement.bind(range.upperBound, at: 2)
            try statement.bind(Int64(limit), at: 3)
            var pairs: [KeyValuePair] = []
            pairs.reserveCapacity(min(limit, 256))
            while try statement.step() {
                pairs.append(KeyValuePair(key: try statement.blob(at: 0), value: try statement.blob(at: 1)))
            }
            return pairs
        }
    }

    /// ``scan(_:limit:reverse:)`` with each pair lent to `body` from the statement's row
    /// instead of copied (the SPI's `scan(_:limit:reverse:lending:)`).
    func scan(
        _ range: KeyRange, limit: Int, reverse: Bool,
        lending body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard limit >= 1 else {
            throw BackendError(.invalidArgument, "SQLite: a scan limit must be at least 1, got \(limit)")
        }
        if range.isEmpty { return }
        try statement(reverse ? .scanReverse : .scanForward).withReset { statement in
            try statement.bind(range.lowerBound, at: 1)
            try statement.bind(range.upperBound, at: 2)
            try statement.bind(Int64(limit), at: 3)
            while try statement.step() {
                try body(try statement.lentBlob(at: 0), try statement.lentBlob(at: 1))
            }
        }
    }

    /// Stores `value` under `key`.
    func set(_ key: [UInt8], _ value: [UInt8]) throws {
        try statement(.set).withReset { statement in
            try statement.bind(key, at: 1)
            try statement.bind(value, at: 2)
            while try statement.step() {}
        }
    }

    /// Removes `key`, if present.
    func clear(_ key: [UInt8]) throws {
        try statement(.clear).withReset { statement in
            try statement.bind(key, at: 1)
            while try statement.step() {}
        }
    }

    /// Removes every key of `range`.
    func clearRange(_ range: KeyRange) throws {
        if range.isEmpty { return }
        try statement(.clearRange).withReset { statement in
            try statement.bind(range.lowerBound, at: 1)
            try statement.bind(range.upperBound, at: 2)
            while try statement.step() {}
        }
    }
}
