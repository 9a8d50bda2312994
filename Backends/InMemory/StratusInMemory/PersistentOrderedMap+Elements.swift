import StratusBackend

extension PersistentOrderedMap {
    /// The keys of one range of a map and their values, in ascending or descending key order.
    ///
    /// Made by ``PersistentOrderedMap/elements(in:reverse:)``. It holds a snapshot: changing the
    /// map afterwards does not change what the sequence yields.
    package struct Elements: Sequence, Sendable {
        let root: Node?
        let range: KeyRange
        let reverse: Bool

        /// An iterator positioned before the first element of the range.
        package func makeIterator() -> Iterator {
            Iterator(root: root, range: range, reverse: reverse)
        }
    }

    /// Walks a range of the tree in order with an explicit stack of the nodes still to visit.
    ///
    /// The stack holds the path of pending ancestors, at most the tree's height, so starting
    /// costs O(log n) and each step O(1) amortized.
    package struct Iterator: IteratorProtocol {
        /// The nodes still to yield, nearest last; each one's subtree on the walking side has
        /// already been pushed or skipped.
        private var pending: [Node] = []
        private let range: KeyRange
        private let reverse: Bool

        init(root: Node?, range: KeyRange, reverse: Bool) {
            self.range = range
            self.reverse = reverse
            pending.reserveCapacity(Node.height(root))
            // Descend to the first key of the walk, remembering every node on the way that
            // will come after it.
            var node = root
            while let current = node {
                if reverse {
                    // Walking down from the upper bound: keep nodes below it.
                    if ByteOrder.less(current.key, range.upperBound) {
                        pending.append(current)
                        node = current.right
                    } else {
                        node = current.left
                    }
                } else {
                    // Walking up from the lower bound: keep nodes at or above it.
                    if ByteOrder.less(current.key, range.lowerBound) {
                        node = current.right
                    } else {
                        pending.append(current)
                        node = current.left
                    }
                }
            }
        }

        /// The next key and its value, or `nil` past the end of the range.
        package mutating func next() -> (key: [UInt8], value: Value)? {
            guard let node = pending.popLast() else { return nil }
            if reverse {
                guard !ByteOrder.less(node.key, range.lowerBound) else {
                    pending.removeAll()
                    return nil
                }
                // The next smaller keys are the right spine of the left subtree.
                var child = node.left
                while let current = child {
                    pending.append(current)
                    child = current.right
                }
            } else {
                guard ByteOrder.less(node.key, range.upperBound) else {
                    pending.removeAll()
                    return nil
                }
                // The next larger keys are the left spine of the right subtree.
                var child = node.right
                while let current = child {
                    pending.append(current)
                    child = current.left
                }
            }
            return (node.key, node.value)
        }
    }
}
