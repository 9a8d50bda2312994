extension PersistentOrderedMap {
    /// One immutable node of the AVL tree.
    ///
    /// Every property is a `let`: once built, a node never changes, which is what lets many
    /// versions of the map share it and many threads read it without locks.
    final class Node: Sendable {
        /// The key of this node; every key in ``left`` is smaller and every key in ``right``
        /// is larger.
        let key: [UInt8]
        /// The value stored under ``key``.
        let value: Value
        /// The subtree of smaller keys.
        let left: Node?
        /// The subtree of larger keys.
        let right: Node?
        /// The number of nodes on the longest path from this node down to a leaf, this node
        /// included (a leaf has height 1). AVL trees keep the heights of a node's two subtrees
        /// at most 1 apart, so the height stays below 1.45 log2(n + 2).
        let height: Int
        /// The number of nodes in this subtree, this node included.
        let count: Int

        /// A node over two subtrees that must already be ordered and balanced around `key`.
        init(_ left: Node?, _ key: [UInt8], _ value: Value, _ right: Node?) {
            self.key = key
            self.value = value
            self.left = left
            self.right = right
            self.height = Swift.max(Node.height(left), Node.height(right)) + 1
            self.count = Node.count(left) + Node.count(right) + 1
        }

        /// The height of `node`; 0 for an empty tree.
        static func height(_ node: Node?) -> Int { node?.height ?? 0 }

        /// The number of nodes of `node`; 0 for an empty tree.
        static func count(_ node: Node?) -> Int { node?.count ?? 0 }
    }
}
