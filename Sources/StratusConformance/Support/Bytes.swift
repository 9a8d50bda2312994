import StratusBackend

extension Array where Element == UInt8 {
    /// The UTF-8 bytes of `text`: `try transaction.set(.utf8("a"), .utf8("1"))`.
    static func utf8(_ text: String) -> [UInt8] {
        Array(text.utf8)
    }

    /// `value` as 8 big-endian bytes, so that numeric and byte order agree.
    static func uint64(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }

    /// The number these 8 big-endian bytes encode, or `nil` if there are not exactly 8.
    var uint64: UInt64? {
        guard count == 8 else { return nil }
        return reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// Short, readable renderings of keys, values and pairs for failure messages.
enum ByteText {
    /// `"abc"` when every byte is printable ASCII, else `0x00ff…`; long byte strings are cut
    /// and their length given.
    static func describe(_ bytes: [UInt8]) -> String {
        let shown = bytes.prefix(48)
        let suffix = bytes.count > shown.count ? "…(\(bytes.count) bytes)" : ""
        if shown.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) {
            return "\"" + String(decoding: shown, as: UTF8.self) + "\"" + suffix
        }
        let hex = shown.map { byte in
            let digits = String(byte, radix: 16)
            return byte < 0x10 ? "0" + digits : digits
        }
        return "0x" + hex.joined() + suffix
    }

    /// `nil` or the described bytes.
    static func describe(_ bytes: [UInt8]?) -> String {
        bytes.map { describe($0) } ?? "nil"
    }

    /// `[k1, k2, …]`, at most `limit` keys shown.
    static func describe(keys: [[UInt8]], limit: Int = 24) -> String {
        let shown = keys.prefix(limit).map { describe($0) }
        let more = keys.count > limit ? ", … (\(keys.count) keys)" : ""
        return "[" + shown.joined(separator: ", ") + more + "]"
    }

    /// `[k1: v1, k2: v2, …]`, at most `limit` pairs shown.
    static func describe(pairs: [KeyValuePair], limit: Int = 24) -> String {
        let shown = pairs.prefix(limit).map { describe($0.key) + ": " + describe($0.value) }
        let more = pairs.count > limit ? ", … (\(pairs.count) pairs)" : ""
        return "[" + shown.joined(separator: ", ") + more + "]"
    }
}

extension KeyRange {
    /// Every key a backend can store (the keys starting with the empty prefix).
    static var everything: KeyRange { KeyRange(prefix: []) }
}

extension KeyValuePair {
    /// The pair of the UTF-8 bytes of `key` and `value`.
    init(_ key: String, _ value: String) {
        self.init(key: .utf8(key), value: .utf8(value))
    }
}

/// A small deterministic random number generator (SplitMix64), so that a case scrambles its
/// input the same way on every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Array {
    /// The elements in an order that looks random but is the same on every run.
    func scrambled(seed: UInt64 = 0x5EED) -> [Element] {
        var generator = SeededGenerator(seed: seed)
        return shuffled(using: &generator)
    }
}
