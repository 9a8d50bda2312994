import StratusBackend

/// A range of encoded values in a field's value index: every group whose encoded value `g`
/// has `lower <= g < upper`, compared byte by byte (decision 0019.2). Bounds are taken
/// inclusively at the granularity of the encoding, so a range holds at least every value the
/// comparison it came from can match.
struct IndexBounds: Sendable, Hashable {
    var lower: [UInt8]
    var upper: [UInt8]

    /// Whether no group can fall inside.
    var isEmpty: Bool { !KeyRange.less(lower, upper) }

    /// Every group that starts with `element`.
    static func startingWith(_ element: [UInt8]) -> IndexBounds {
        IndexBounds(lower: element, upper: KeyRange.successor(ofPrefix: element))
    }

    /// The groups of both ranges.
    func intersection(_ other: IndexBounds) -> IndexBounds {
        IndexBounds(
            lower: KeyRange.less(lower, other.lower) ? other.lower : lower,
            upper: KeyRange.less(upper, other.upper) ? upper : other.upper)
    }

    /// The groups in both sets of ranges, in ascending order, without empty ranges.
    static func intersection(_ a: [IndexBounds], _ b: [IndexBounds]) -> [IndexBounds] {
        var result: [IndexBounds] = []
        for x in a {
            for y in b {
                let both = x.intersection(y)
                if !both.isEmpty { result.append(both) }
            }
        }
        return normalized(result)
    }

    /// `ranges` in ascending order with overlapping or touching ranges merged, so a walk of
    /// them never reads a group twice.
    static func normalized(_ ranges: [IndexBounds]) -> [IndexBounds] {
        let sorted = ranges.filter { !$0.isEmpty }.sorted { KeyRange.less($0.lower, $1.lower) }
        var merged: [IndexBounds] = []
        for range in sorted {
            if let last = merged.last, !KeyRange.less(last.upper, range.lower) {
                if KeyRange.less(last.upper, range.upper) { merged[merged.count - 1].upper = range.upper }
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}
