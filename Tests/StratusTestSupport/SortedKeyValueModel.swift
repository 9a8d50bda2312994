public import StratusBackend

/// The simplest possible ordered key-value store: a sorted array of pairs.
///
/// Too slow for real use (a set costs O(n)), and that is the point: it is obviously right, so
/// tests compare real stores against it, and deliberately broken test backends use it as their
/// private copy of the data.
public struct SortedKeyValueModel: Sendable, Equatable {
    /// Every pair, in ascending key order, keys unique.
    public private(set) var pairs: [KeyValuePair]

    /// A model holding `pairs`; for a key given twice the last value wins.
    public init(_ pairs: [KeyValuePair] = []) {
        self.pairs = []
        for pair in pairs { set(pair.value, forKey: pair.key) }
    }

    /// The number of keys.
    public var count: Int { pairs.count }

    /// The value stored under `key`, or `nil`.
    public func value(forKey key: [UInt8]) -> [UInt8]? {
        let (index, found) = position(of: key)
        return found ? pairs[index].value : nil
    }

    /// Stores `value` under `key`, replacing any previous value.
    public mutating func set(_ value: [UInt8], forKey key: [UInt8]) {
        let (index, found) = position(of: key)
        if found {
            pairs[index].value = value
        } else {
            pairs.insert(KeyValuePair(key: key, value: value), at: index)
        }
    }

    /// Removes `key`, if present.
    public mutating func remove(_ key: [UInt8]) {
        let (index, found) = position(of: key)
        if found { pairs.remove(at: index) }
    }

    /// Removes every key of `range`.
    public mutating func removeAll(in range: KeyRange) {
        pairs.removeAll { range.contains($0.key) }
    }

    /// Up to `limit` pairs of `range`, ascending or, when `reverse`, descending.
    public func scan(_ range: KeyRange, limit: Int, reverse: Bool = false) -> [KeyValuePair] {
        let inRange = pairs.filter { range.contains($0.key) }
        return Array((reverse ? inRange.reversed() : inRange).prefix(limit))
    }

    /// Where `key` is, or where it would be inserted (binary search).
    private func position(of key: [UInt8]) -> (index: Int, found: Bool) {
        var low = 0
        var high = pairs.count
        while low < high {
            let middle = (low + high) / 2
            if KeyRange.less(pairs[middle].key, key) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return (low, low < pairs.count && pairs[low].key == key)
    }
}
