/// A half-open range of keys: from `lowerBound` (included) up to `upperBound` (excluded), in
/// unsigned lexicographic byte order.
public struct KeyRange: Sendable, Hashable, CustomStringConvertible {
    /// The first key of the range (included).
    public var lowerBound: [UInt8]
    /// The end of the range (excluded).
    public var upperBound: [UInt8]

    /// A range from `lowerBound` (included) to `upperBound` (excluded).
    public init(from lowerBound: [UInt8], to upperBound: [UInt8]) {
        self.lowerBound = lowerBound
        self.upperBound = upperBound
    }

    /// Every key that starts with `prefix`.
    ///
    /// A prefix made only of `0xFF` bytes has no finite successor; its range ends at the
    /// prefix followed by a run of `0xFF` bytes long enough for any key a backend stores.
    public init(prefix: [UInt8]) {
        self.lowerBound = prefix
        self.upperBound = KeyRange.successor(ofPrefix: prefix)
    }

    /// Whether the range holds no key at all.
    public var isEmpty: Bool { !KeyRange.less(lowerBound, upperBound) }

    /// Whether `key` lies in the range.
    public func contains(_ key: [UInt8]) -> Bool {
        !KeyRange.less(key, lowerBound) && KeyRange.less(key, upperBound)
    }

    /// The smallest key greater than every key that starts with `prefix`.
    public static func successor(ofPrefix prefix: [UInt8]) -> [UInt8] {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return prefix + [UInt8](repeating: 0xFF, count: 4096)
    }

    /// The unsigned lexicographic order every backend must use (`memcmp`, shorter first).
    public static func less(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        lhs.withUnsafeBytes { l in rhs.withUnsafeBytes { r in less(l, r) } }
    }

    /// ``less(_:_:)-([UInt8],_)`` over bytes a backend lends
    /// (``BackendReadTransaction/scan(_:limit:reverse:lending:)``).
    public static func less(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        let n = Swift.min(lhs.count, rhs.count)
        for i in 0..<n where lhs[i] != rhs[i] {
            return lhs[i] < rhs[i]
        }
        return lhs.count < rhs.count
    }

    /// A textual description, for logs.
    public var description: String {
        "[\(KeyRange.hex(lowerBound)), \(KeyRange.hex(upperBound)))"
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.prefix(64).map { byte in
            let s = String(byte, radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined() + (bytes.count > 64 ? "…" : "")
    }
}
