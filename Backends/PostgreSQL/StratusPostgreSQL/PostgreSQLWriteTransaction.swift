import StratusBackend

/// The transaction object a write body receives: one `SERIALIZABLE` transaction whose writes
/// are buffered (``PostgreSQLWriteBuffer``) and sent in bulk — with the scan that needs them,
/// or with the `COMMIT` — so a body costs a handful of round trips however much it writes.
///
/// Reads see the body's own writes: a `get` of a buffered key is answered from the buffer;
/// a scan whose range holds buffered writes sends them first, in the same round trip.
final class PostgreSQLWriteTransaction: PostgreSQLReadTransaction, SignalingWriteTransaction {
    private var buffer = PostgreSQLWriteBuffer()
    /// How this store's channel names become PostgreSQL's (``PostgreSQLBackend/notifyChannel(_:)``).
    var notifyChannel: (String) -> String = { $0 }

    override func get(_ key: [UInt8]) throws -> [UInt8]? {
        try checkActive()
        if let buffered = buffer.lookup(key) { return buffered }
        return try serverGet(key)
    }

    override func getMany(_ keys: [[UInt8]]) throws -> [[UInt8]?] {
        try checkActive()
        let unbuffered = keys.filter { buffer.lookup($0) == nil }
        let found = try serverGetMany(unbuffered)
        return keys.map { key in
            if let buffered = buffer.lookup(key) { return buffered }
            return found[key]
        }
    }

    override func scan(_ range: KeyRange, limit: Int, reverse: Bool) throws -> [KeyValuePair] {
        try checkActive()
        if range.isEmpty, limit >= 1 { return [] }
        guard buffer.overlaps(range) else { return try serverScan(range, limit: limit, reverse: reverse) }
        let flush = buffer.statements(table: table)
        buffer.removeAll()
        return try serverScan(range, limit: limit, reverse: reverse, before: flush)
    }

    /// Keys and scans in one round trip: buffered keys are answered from the buffer; when a
    /// scan's range holds buffered writes, the buffer is sent first, in the same round trip.
    override func getMany(_ keys: [[UInt8]], scanning scans: [ScanRequest]) throws -> BatchedReads {
        try checkActive()
        var before: [PostgreSQLStatement] = []
        if scans.contains(where: { !$0.range.isEmpty && buffer.overlaps($0.range) }) {
            before = buffer.statements(table: table)
            buffer.removeAll()
        }
        let read = try serverRead(keys.filter { buffer.lookup($0) == nil }, scans, before: before)
        let values = keys.map { key in
            if let buffered = buffer.lookup(key) { return buffered }
            return read.found[key]
        }
        return BatchedReads(values: values, scans: read.scans)
    }

    func set(_ key: [UInt8], _ value: [UInt8]) throws {
        try checkActive()
        buffer.set(key, value)
    }

    func clear(_ key: [UInt8]) throws {
        try checkActive()
        buffer.clear(key)
    }

    func clearRange(_ range: KeyRange) throws {
        try checkActive()
        buffer.clearRange(range)
    }

    func signal(channel: String, payload: String) throws {
        try checkActive()
        buffer.signal(channel: notifyChannel(channel), payload: payload)
    }

    /// Sends what is still buffered and `COMMIT`, in one round trip (nothing at all for a body
    /// that neither read nor wrote).
    func commit() throws {
        let flush = buffer.statements(table: table)
        buffer.removeAll()
        if flush.isEmpty && !state.hasBegun { return }
        _ = try state.run(flush, committing: true)
    }

    private func checkActive() throws {
        guard state.isActive else {
            throw BackendError(.internal, "PostgreSQL: a transaction object was used outside its body")
        }
        if let failure = state.failure { throw failure }
    }
}
