import StratusBackend

/// The argument and lifetime checks shared by the in-memory transactions.
enum TransactionRules {
    /// Throws unless the transaction's body is still running.
    static func checkActive(_ isActive: Bool) throws {
        guard isActive else {
            throw BackendError(
                .invalidArgument, "an in-memory transaction was used after its body returned")
        }
    }

    /// Throws unless `limit` is a valid scan limit (at least 1).
    static func checkLimit(_ limit: Int) throws {
        guard limit >= 1 else {
            throw BackendError(.invalidArgument, "a scan limit must be at least 1, not \(limit)")
        }
    }
}

extension PersistentOrderedMap where Value == [UInt8] {
    /// Up to `limit` pairs of `range`, ascending or, when `reverse`, descending:
    /// O(log n + limit).
    func pairs(in range: KeyRange, limit: Int, reverse: Bool) throws -> [KeyValuePair] {
        try TransactionRules.checkLimit(limit)
        var pairs: [KeyValuePair] = []
        for (key, value) in elements(in: range, reverse: reverse) {
            pairs.append(KeyValuePair(key: key, value: value))
            if pairs.count == limit { break }
        }
        return pairs
    }

    /// The pairs of ``pairs(in:limit:reverse:)``, each lent to `body` from the map (the SPI's
    /// `scan(_:limit:reverse:lending:)`): no array of pairs, no retain of each key and value.
    func lendPairs(
        in range: KeyRange, limit: Int, reverse: Bool,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try TransactionRules.checkLimit(limit)
        var lent = 0
        for (key, value) in elements(in: range, reverse: reverse) {
            try key.withUnsafeBytes { key in try value.withUnsafeBytes { try body(key, $0) } }
            lent += 1
            if lent == limit { break }
        }
    }
}
