/// A scan asked for together with other reads, in one
/// ``BackendReadTransaction/getMany(_:scanning:)`` call.
public struct ScanRequest: Sendable, Hashable {
    /// The keys to scan.
    public var range: KeyRange
    /// At most this many pairs (at least 1).
    public var limit: Int
    /// Whether the pairs come in descending key order.
    public var reverse: Bool

    /// A scan of up to `limit` pairs of `range`, in ascending order unless `reverse`.
    public init(_ range: KeyRange, limit: Int, reverse: Bool = false) {
        self.range = range
        self.limit = limit
        self.reverse = reverse
    }
}

/// What ``BackendReadTransaction/getMany(_:scanning:)`` read: the values of its keys, in their
/// order, and the pairs of each scan, in the scans' order.
public struct BatchedReads: Sendable {
    /// The value stored under each key, `nil` where there is none.
    public var values: [[UInt8]?]
    /// The pairs of each scan.
    public var scans: [[KeyValuePair]]

    /// The reads' results.
    public init(values: [[UInt8]?], scans: [[KeyValuePair]]) {
        self.values = values
        self.scans = scans
    }
}
