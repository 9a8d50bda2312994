import StratusBackend

/// An ordered map from byte-string keys to values that is never changed in place.
///
/// The map is a persistent AVL tree: a balanced binary search tree whose nodes are immutable.
/// A change never touches an existing node. It copies the nodes on the path from the root down
/// to the changed key, O(log n) of them, and shares every other node with the version it came
/// from ("path copying"). Because the map is a value type over immutable nodes:
///
/// - copying a map is O(1) (it copies one reference), and the copy is a *snapshot*: later
///   changes to either copy never show in the other;
/// - a snapshot can be read from any number of threads at once without a lock;
/// - `set`, `remove` and ``removeAll(in:)`` cost O(log n) time and allocate O(log n) nodes;
/// - iterating `limit` elements of a range costs O(log n + limit).
///
/// ``InMemoryBackend`` builds its transactions on this: a read transaction keeps the map that
/// was committed when it began, a write transaction changes its own copy and publishes it at
/// commit.
///
/// Keys are ordered as the backend SPI requires (``ByteOrder``: unsigned bytes, `memcmp`).
package struct PersistentOrderedMap<Value: Sendable>: Sendable {
    /// The root node, or `nil` when the map is empty.
    private(set) var root: Node?

    /// An empty map.
    package init() {
        root = nil
    }

    /// The number of keys in the map. O(1).
    package var count: Int { root?.count ?? 0 }

    /// Whether the map holds no key. O(1).
    package var isEmpty: Bool { root == nil }

    /// The value stored under `key`, or `nil`. O(log n).
    package func value(forKey key: [UInt8]) -> Value? {
        var node = root
        while let current = node {
            switch ByteOrder.compare(key, current.key) {
            case .less: node = current.left
            case .greater: node = current.right
            case .equal: return current.value
            }
        }
        return nil
    }

    /// Stores `value` under `key`, replacing any previous value. O(log n).
    package mutating func set(_ value: Value, forKey key: [UInt8]) {
        root = Node.inserting(key, value, into: root)
    }

    /// Removes `key` and its value, if present. O(log n).
    package mutating func remove(_ key: [UInt8]) {
        root = Node.removing(key, from: root)
    }

    /// Removes every key that lies in `range` (half-open). O(log n) whatever the number of keys
    /// removed: the tree is split at both bounds and the two outer parts joined again.
    package mutating func removeAll(in range: KeyRange) {
        guard !range.isEmpty else { return }
        let below = Node.keys(of: root, lessThan: range.lowerBound)
        let above = Node.keys(of: root, notLessThan: range.upperBound)
        root = Node.concatenating(below, above)
    }

    /// The keys of `range` and their values, in ascending key order, or in descending order
    /// when `reverse` is `true`.
    ///
    /// The sequence is lazy: finding the first element costs O(log n) and every further one
    /// O(1) amortized, so `elements(in:reverse:).prefix(limit)` costs O(log n + limit).
    package func elements(in range: KeyRange, reverse: Bool = false) -> Elements {
        Elements(root: root, range: range, reverse: reverse)
    }
}
