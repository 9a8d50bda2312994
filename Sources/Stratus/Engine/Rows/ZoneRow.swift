/// A zone as stored: `DatabaseKeys.zone(name, owner)`.
struct ZoneRow: Sendable {
    /// The zone's number, unique for ever within its database: a re-created zone gets a new
    /// one, so tokens of the old zone can never be misread.
    var number: Int64
    var capabilities: UInt64
    var encryptionScope: UInt8 = 0
    /// The next change position to hand out; positions start at 1.
    var nextPosition: Int64 = 1
    /// The oldest position a token may resume from; older tokens are expired.
    var horizon: Int64 = 0
    /// The zone's current entry in the database change log, 0 if none.
    var databaseChangePosition: Int64 = 0
    /// The `clientChangeTokenData` of the last modify in the zone.
    var clientChangeTokenData: [UInt8]?

    init(number: Int64, capabilities: UInt64) {
        self.number = number
        self.capabilities = capabilities
    }

    func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.write(UInt8(1))
        w.write(number)
        w.write(Int64(bitPattern: capabilities))
        w.write(encryptionScope)
        w.write(nextPosition)
        w.write(horizon)
        w.write(databaseChangePosition)
        if let clientChangeTokenData {
            w.write(UInt8(1))
            w.write(bytes: clientChangeTokenData)
        } else {
            w.write(UInt8(0))
        }
        return w.bytes
    }

    init(decoding bytes: [UInt8]) throws {
        var r = ByteReader(bytes)
        guard try r.readByte() == 1 else { throw EngineError.corruptValue }
        number = try r.readInt64()
        capabilities = UInt64(bitPattern: try r.readInt64())
        encryptionScope = try r.readByte()
        nextPosition = try r.readInt64()
        horizon = try r.readInt64()
        databaseChangePosition = try r.readInt64()
        clientChangeTokenData = try r.readByte() == 1 ? try r.readBytes() : nil
    }
}
