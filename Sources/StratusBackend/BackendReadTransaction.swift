/// The reads available inside ``DatabaseBackend/read(_:)`` and ``DatabaseBackend/write(_:)``.
///
/// A transaction object is only valid inside the body it was passed to.
public protocol BackendReadTransaction: AnyObject {
    /// The value stored under `key`, or `nil` if there is none. Checked by `kv.basic.*`.
    func get(_ key: [UInt8]) throws -> [UInt8]?

    /// Up to `limit` key-value pairs whose keys lie in `range`, in ascending key order, or in
    /// descending order when `reverse` is `true`.
    ///
    /// `limit` is at least 1. Callers page through large ranges by narrowing `range` past the
    /// last key they received. Checked by `kv.scan.halfOpenBounds`, `kv.scan.limit`,
    /// `kv.scan.reverse`, `kv.scan.reverseWithLimit`, `kv.scan.emptyRanges`, `kv.scan.prefix`
    /// and `kv.scan.largeRange`.
    func scan(_ range: KeyRange, limit: Int, reverse: Bool) throws -> [KeyValuePair]
}

extension BackendReadTransaction {
    /// Up to `limit` pairs of `range` in ascending key order.
    public func scan(_ range: KeyRange, limit: Int) throws -> [KeyValuePair] {
        try scan(range, limit: limit, reverse: false)
    }
}
