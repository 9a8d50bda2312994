import StratusBackend

/// A read transaction of ``InMemoryBackend``: reads one immutable snapshot, without locks.
final class InMemoryReadTransaction: BackendReadTransaction {
    /// The committed data when the transaction began.
    private let snapshot: KeyValueMap
    /// `false` once the body has returned; the SPI says a transaction never outlives its body.
    private var isActive = true

    init(snapshot: KeyValueMap) {
        self.snapshot = snapshot
    }

    func get(_ key: [UInt8]) throws -> [UInt8]? {
        try TransactionRules.checkActive(isActive)
        return snapshot.value(forKey: key)
    }

    func scan(_ range: KeyRange, limit: Int, reverse: Bool) throws -> [KeyValuePair] {
        try TransactionRules.checkActive(isActive)
        return try snapshot.pairs(in: range, limit: limit, reverse: reverse)
    }

    func scan(
        _ range: KeyRange, limit: Int, reverse: Bool,
        lending body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try TransactionRules.checkActive(isActive)
        try snapshot.lendPairs(in: range, limit: limit, reverse: reverse, body)
    }

    /// Marks the end of the body: later calls throw.
    func end() {
        isActive = false
    }
}
