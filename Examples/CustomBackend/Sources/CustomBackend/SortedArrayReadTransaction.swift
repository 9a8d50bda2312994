import StratusBackend

/// A read transaction of ``SortedArrayBackend``: reads one snapshot, without locks.
final class SortedArrayReadTransaction: BackendReadTransaction {
    /// The committed data when the transaction began.
    private let snapshot: SortedPairs
    /// `false` once the body has returned: a transaction never outlives its body.
    private var isActive = true

    init(snapshot: SortedPairs) {
        self.snapshot = snapshot
    }

    func get(_ key: [UInt8]) throws -> [UInt8]? {
        try TransactionChecks.active(isActive)
        return snapshot.value(forKey: key)
    }

    func scan(_ range: KeyRange, limit: Int, reverse: Bool) throws -> [KeyValuePair] {
        try TransactionChecks.active(isActive)
        try TransactionChecks.limit(limit)
        return snapshot.pairs(in: range, limit: limit, reverse: reverse)
    }

    /// Marks the end of the body: later calls throw.
    func end() {
        isActive = false
    }
}
