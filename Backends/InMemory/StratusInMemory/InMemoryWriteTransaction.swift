import StratusBackend

/// A write transaction of ``InMemoryBackend``: changes a private copy of the data.
///
/// Every change makes a new version of ``data`` in O(log n), sharing all untouched nodes with
/// the previous one, so reads in the same body see the body's own writes with no extra
/// bookkeeping. ``InMemoryStore`` publishes ``data`` when the body returns.
final class InMemoryWriteTransaction: BackendWriteTransaction {
    /// The committed data when the transaction began, with the body's changes so far.
    private(set) var data: KeyValueMap
    /// `false` once the body has returned; the SPI says a transaction never outlives its body.
    private var isActive = true

    init(data: KeyValueMap) {
        self.data = data
    }

    func get(_ key: [UInt8]) throws -> [UInt8]? {
        try TransactionRules.checkActive(isActive)
        return data.value(forKey: key)
    }

    func scan(_ range: KeyRange, limit: Int, reverse: Bool) throws -> [KeyValuePair] {
        try TransactionRules.checkActive(isActive)
        return try data.pairs(in: range, limit: limit, reverse: reverse)
    }

    func scan(
        _ range: KeyRange, limit: Int, reverse: Bool,
        lending body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try TransactionRules.checkActive(isActive)
        try data.lendPairs(in: range, limit: limit, reverse: reverse, body)
    }

    func set(_ key: [UInt8], _ value: [UInt8]) throws {
        try TransactionRules.checkActive(isActive)
        data.set(value, forKey: key)
    }

    func clear(_ key: [UInt8]) throws {
        try TransactionRules.checkActive(isActive)
        data.remove(key)
    }

    func clearRange(_ range: KeyRange) throws {
        try TransactionRules.checkActive(isActive)
        data.removeAll(in: range)
    }

    /// Marks the end of the body: later calls throw.
    func end() {
        isActive = false
    }
}
