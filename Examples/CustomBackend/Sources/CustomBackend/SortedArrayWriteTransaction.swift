import StratusBackend

/// A write transaction of ``SortedArrayBackend``: changes a private copy of the data.
///
/// Reads go to the same copy, so the body reads its own writes with no overlay to merge.
/// ``SortedArrayStore`` publishes ``data`` when the body returns.
final class SortedArrayWriteTransaction: BackendWriteTransaction {
    /// The committed data when the transaction began, with the body's changes so far.
    private(set) var data: SortedPairs
    /// `false` once the body has returned: a transaction never outlives its body.
    private var isActive = true

    init(data: SortedPairs) {
        self.data = data
    }

    func get(_ key: [UInt8]) throws -> [UInt8]? {
        try TransactionChecks.active(isActive)
        return data.value(forKey: key)
    }

    func scan(_ range: KeyRange, limit: Int, reverse: Bool) throws -> [KeyValuePair] {
        try TransactionChecks.active(isActive)
        try TransactionChecks.limit(limit)
        return data.pairs(in: range, limit: limit, reverse: reverse)
    }

    func set(_ key: [UInt8], _ value: [UInt8]) throws {
        try TransactionChecks.active(isActive)
        data.set(value, forKey: key)
    }

    func clear(_ key: [UInt8]) throws {
        try TransactionChecks.active(isActive)
        data.remove(key)
    }

    func clearRange(_ range: KeyRange) throws {
        try TransactionChecks.active(isActive)
        data.removeAll(in: range)
    }

    /// Marks the end of the body: later calls throw.
    func end() {
        isActive = false
    }
}
