/// SipHash-2-4 (Aumasson and Bernstein, 2012), a keyed pseudo-random function, used as the MAC
/// of change tokens and query cursors (decision 0003). Written from the paper's specification.
struct SipHash {
    private var v0: UInt64, v1: UInt64, v2: UInt64, v3: UInt64

    /// The 64-bit SipHash-2-4 of `message` under the 128-bit key `(k0, k1)`.
    static func hash(_ message: [UInt8], k0: UInt64, k1: UInt64) -> UInt64 {
        var state = SipHash(k0: k0, k1: k1)
        return state.run(message)
    }

    /// A 128-bit tag: two SipHash-2-4 values under the two halves of a 256-bit key.
    static func tag(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        precondition(key.count == 32)
        func word(_ i: Int) -> UInt64 {
            var v: UInt64 = 0
            for j in (0..<8).reversed() { v = v << 8 | UInt64(key[i * 8 + j]) }
            return v
        }
        let a = hash(message, k0: word(0), k1: word(1))
        let b = hash(message, k0: word(2), k1: word(3))
        var out: [UInt8] = []
        for v in [a, b] {
            for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: v >> UInt64(8 * i))) }
        }
        return out
    }

    /// Whether two tags are equal, in time that depends only on their length (decision 0013.8):
    /// tokens and cursors arrive from the network, and an early exit would tell an attacker how
    /// many leading bytes of a forged tag are right. Different lengths are unequal.
    static func tagsEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    private init(k0: UInt64, k1: UInt64) {
        v0 = k0 ^ 0x736f_6d65_7073_6575
        v1 = k1 ^ 0x646f_7261_6e64_6f6d
        v2 = k0 ^ 0x6c79_6765_6e65_7261
        v3 = k1 ^ 0x7465_6462_7974_6573
    }

    private mutating func round() {
        v0 = v0 &+ v1
        v1 = (v1 << 13) | (v1 >> 51)
        v1 ^= v0
        v0 = (v0 << 32) | (v0 >> 32)
        v2 = v2 &+ v3
        v3 = (v3 << 16) | (v3 >> 48)
        v3 ^= v2
        v0 = v0 &+ v3
        v3 = (v3 << 21) | (v3 >> 43)
        v3 ^= v0
        v2 = v2 &+ v1
        v1 = (v1 << 17) | (v1 >> 47)
        v1 ^= v2
        v2 = (v2 << 32) | (v2 >> 32)
    }

    private mutating func compress(_ m: UInt64) {
        v3 ^= m
        round()
        round()
        v0 ^= m
    }

    private mutating func run(_ message: [UInt8]) -> UInt64 {
        let count = message.count
        var i = 0
        while i + 8 <= count {
            var m: UInt64 = 0
            for j in (0..<8).reversed() { m = m << 8 | UInt64(message[i + j]) }
            compress(m)
            i += 8
        }
        var last = UInt64(truncatingIfNeeded: count) << 56
        var shift: UInt64 = 0
        while i < count {
            last |= UInt64(message[i]) << shift
            shift += 8
            i += 1
        }
        compress(last)
        v2 ^= 0xFF
        round()
        round()
        round()
        round()
        return v0 ^ v1 ^ v2 ^ v3
    }
}
