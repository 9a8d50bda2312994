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

    /// The pairs ``scan(_:limit:reverse:)`` returns, in its order, each lent to `body` as the
    /// backend holds it instead of copied into two arrays.
    ///
    /// The bytes are valid only during that call of `body`, and `body` must not use the
    /// transaction (the scan may still hold a cursor or a statement). Defaults to
    /// ``scan(_:limit:reverse:)`` and then `body` over each pair's arrays. A backend that reads
    /// values out of buffers of its own (a memory map, a statement's current row) can lend them
    /// and save an allocation and a copy of each key and value: the engine drains a zone's
    /// change log with it. A backend whose write transactions see their own writes through an
    /// override of ``scan(_:limit:reverse:)`` must override this too (or leave both to the
    /// default). Checked by `kv.scan.lending`.
    func scan(
        _ range: KeyRange, limit: Int, reverse: Bool,
        lending body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void
    ) throws

    /// The values stored under `keys`, in the same order, `nil` where there is none.
    ///
    /// Defaults to one ``get(_:)`` per key. A backend whose reads each cost a round trip (a
    /// server) should answer them together; the engine reads every record a modify touches
    /// with one call. Checked by every `modify.*` case.
    func getMany(_ keys: [[UInt8]]) throws -> [[UInt8]?]

    /// The values stored under `keys` (as ``getMany(_:)``) and the pairs of each of `scans`
    /// (as ``scan(_:limit:reverse:)``), read together.
    ///
    /// Defaults to ``getMany(_:)`` and then each scan. A server backend should answer them in
    /// one round trip: the engine reads the rows a modify starts from, and the subscriptions
    /// its commit fires, with one call. Checked by `kv.batch.*`.
    func getMany(_ keys: [[UInt8]], scanning scans: [ScanRequest]) throws -> BatchedReads
}

extension BackendReadTransaction {
    /// One ``get(_:)`` per key, in order: the default of ``getMany(_:)``.
    public func getMany(_ keys: [[UInt8]]) throws -> [[UInt8]?] {
        try keys.map { try get($0) }
    }

    /// ``getMany(_:)``, then each scan in turn: the default of ``getMany(_:scanning:)``.
    public func getMany(_ keys: [[UInt8]], scanning scans: [ScanRequest]) throws -> BatchedReads {
        let values = try getMany(keys)
        return BatchedReads(
            values: values, scans: try scans.map { try scan($0.range, limit: $0.limit, reverse: $0.reverse) })
    }

    /// ``scan(_:limit:reverse:)``, then `body` over each pair's arrays: the default of
    /// ``scan(_:limit:reverse:lending:)``.
    public func scan(
        _ range: KeyRange, limit: Int, reverse: Bool,
        lending body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void
    ) throws {
        for pair in try scan(range, limit: limit, reverse: reverse) {
            try pair.key.withUnsafeBytes { key in try pair.value.withUnsafeBytes { value in try body(key, value) } }
        }
    }

    /// Up to `limit` pairs of `range` in ascending key order.
    public func scan(_ range: KeyRange, limit: Int) throws -> [KeyValuePair] {
        try scan(range, limit: limit, reverse: false)
    }
}
