/// The key order of the backend SPI: unsigned bytes compared lexicographically, a key sorting
/// before every longer key it prefixes (`memcmp` order). The same order as `KeyRange.less`.
package enum ByteOrder {
    /// How one key compares with another.
    package enum Comparison: Sendable {
        /// The first key sorts before the second.
        case less
        /// The keys are equal.
        case equal
        /// The first key sorts after the second.
        case greater
    }

    /// Compares `lhs` with `rhs` byte by byte, as unsigned values.
    package static func compare(_ lhs: [UInt8], _ rhs: [UInt8]) -> Comparison {
        lhs.withUnsafeBufferPointer { l in
            rhs.withUnsafeBufferPointer { r in
                let common = Swift.min(l.count, r.count)
                var i = 0
                while i < common {
                    let a = l[i]
                    let b = r[i]
                    if a != b { return a < b ? .less : .greater }
                    i += 1
                }
                if l.count == r.count { return .equal }
                return l.count < r.count ? .less : .greater
            }
        }
    }

    /// Whether `lhs` sorts strictly before `rhs`.
    package static func less(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        compare(lhs, rhs) == .less
    }
}
