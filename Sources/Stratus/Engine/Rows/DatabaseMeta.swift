/// Counters of one database: `DatabaseKeys.meta`.
struct DatabaseMeta: Sendable {
    var nextZoneNumber: Int64 = 1
    var nextDatabasePosition: Int64 = 1
    var nextTypeNumber: Int64 = 1
    /// The oldest database change position a token may resume from.
    var horizon: Int64 = 0

    init() {}

    func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.write(UInt8(1))
        w.write(nextZoneNumber)
        w.write(nextDatabasePosition)
        w.write(nextTypeNumber)
        w.write(horizon)
        return w.bytes
    }

    init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        guard try r.readByte() == 1 else { throw EngineError.corruptValue }
        nextZoneNumber = try r.readInt64()
        nextDatabasePosition = try r.readInt64()
        nextTypeNumber = try r.readInt64()
        horizon = try r.readInt64()
    }
}
