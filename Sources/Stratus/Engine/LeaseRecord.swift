import Foundation

/// The value of a long-lived operation's lease (``LongLivedLeases``): its holder, its expiry,
/// how many times it was claimed after a holder let it expire, and whether its last holder
/// released it (a graceful stop, which the next claim does not count). Leases written before
/// the count existed read as never claimed.
struct LeaseRecord: Sendable, Equatable {
    var holder: String
    /// Seconds since 1970.
    var expiry: Double
    var claims: Int64 = 0
    var released = false

    init(holder: String, expiry: Double) {
        self.holder = holder
        self.expiry = expiry
    }

    init(decoding bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        self.init(holder: try reader.readString(), expiry: try reader.readDouble())
        if !reader.isAtEnd {
            claims = try reader.readInt64()
            released = try reader.readByte() != 0
        }
    }

    func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.write(holder)
        writer.write(expiry)
        writer.write(claims)
        writer.write(UInt8(released ? 1 : 0))
        return writer.bytes
    }
}
