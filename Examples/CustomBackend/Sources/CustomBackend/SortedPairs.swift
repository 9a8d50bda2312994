import StratusBackend

/// The data of the store: every key-value pair, in ascending key order, in one array.
///
/// This is the whole "storage engine" of the example. Lookups are binary searches
/// (O(log n)); a set or a clear inserts into or removes from the array (O(n)), which is fine
/// for a teaching example and for stores of a few hundred thousand keys.
///
/// The order is the one the SPI requires: ``KeyRange/less(_:_:)``, unsigned bytes compared
/// lexicographically, a shorter key before every longer key it prefixes. Using the SPI's own
/// comparison, rather than writing one, is the easiest way to get `kv.ordering.*` right.
///
/// `SortedPairs` is a value type over a Swift `Array`, so copying it is O(1) and the copies
/// share storage until one of them changes: that is what makes snapshots cheap (see
/// ``SortedArrayStore``).
struct SortedPairs: Sendable {
    /// The pairs, strictly ascending by key: no key appears twice.
    private(set) var pairs: [KeyValuePair] = []

    /// An empty set of pairs.
    init() {}

    /// The index of the first pair whose key is not less than `key`, or `pairs.count` if
    /// there is none: where `key` is, or where it would be inserted.
    func firstIndex(notLessThan key: [UInt8]) -> Int {
        var low = 0
        var high = pairs.count
        while low < high {
            let middle = low + (high - low) / 2
            if KeyRange.less(pairs[middle].key, key) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// The indices of the pairs whose keys lie in `range`. Empty for an empty or inverted
    /// range.
    func indices(in range: KeyRange) -> Range<Int> {
        guard !range.isEmpty else { return 0..<0 }
        return firstIndex(notLessThan: range.lowerBound)..<firstIndex(notLessThan: range.upperBound)
    }

    /// The value stored under `key`, or `nil`.
    func value(forKey key: [UInt8]) -> [UInt8]? {
        let index = firstIndex(notLessThan: key)
        guard index < pairs.count, pairs[index].key == key else { return nil }
        return pairs[index].value
    }

    /// Up to `limit` pairs of `range`, ascending, or descending when `reverse` is `true`.
    /// A reverse scan with a limit returns the *last* `limit` pairs of the range.
    func pairs(in range: KeyRange, limit: Int, reverse: Bool) -> [KeyValuePair] {
        let slice = pairs[indices(in: range)]
        return reverse ? Array(slice.reversed().prefix(limit)) : Array(slice.prefix(limit))
    }

    /// Stores `value` under `key`, replacing the value already there.
    mutating func set(_ value: [UInt8], forKey key: [UInt8]) {
        let index = firstIndex(notLessThan: key)
        if index < pairs.count, pairs[index].key == key {
            pairs[index].value = value
        } else {
            pairs.insert(KeyValuePair(key: key, value: value), at: index)
        }
    }

    /// Removes `key`, if it is stored.
    mutating func remove(_ key: [UInt8]) {
        let index = firstIndex(notLessThan: key)
        if index < pairs.count, pairs[index].key == key {
            pairs.remove(at: index)
        }
    }

    /// Removes every pair whose key lies in `range`.
    mutating func removeAll(in range: KeyRange) {
        pairs.removeSubrange(indices(in: range))
    }
}
