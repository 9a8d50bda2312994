/// Checks for tests: the tree's shape, and how much two versions share.
extension PersistentOrderedMap {
    /// The number of nodes on the longest root-to-leaf path; 0 for an empty map.
    package var height: Int { Node.height(root) }

    /// How many nodes of this map are not also nodes of `other`: the number of nodes a change
    /// from `other` to this map allocated. O(n + m).
    package func nodesNotShared(with other: Self) -> Int {
        var shared = Set<ObjectIdentifier>()
        Self.collect(other.root, into: &shared)
        return Self.countNodes(of: root, notIn: shared)
    }

    private static func collect(_ tree: Node?, into nodes: inout Set<ObjectIdentifier>) {
        guard let node = tree else { return }
        nodes.insert(ObjectIdentifier(node))
        collect(node.left, into: &nodes)
        collect(node.right, into: &nodes)
    }

    private static func countNodes(of tree: Node?, notIn shared: Set<ObjectIdentifier>) -> Int {
        // A shared node's whole subtree is shared: nodes never change.
        guard let node = tree, !shared.contains(ObjectIdentifier(node)) else { return 0 }
        return 1 + countNodes(of: node.left, notIn: shared) + countNodes(of: node.right, notIn: shared)
    }

    /// The first broken structural invariant of the tree, described for a test failure, or `nil`
    /// when the tree is sound: keys strictly increasing in order, every node's `height` and
    /// `count` right, and the heights of every node's two subtrees at most 1 apart. O(n).
    package func invariantViolation() -> String? {
        var previous: [UInt8]?
        return Self.violation(in: root, previous: &previous)
    }

    private static func violation(in tree: Node?, previous: inout [UInt8]?) -> String? {
        guard let node = tree else { return nil }
        if let problem = violation(in: node.left, previous: &previous) { return problem }
        if let previous, !ByteOrder.less(previous, node.key) {
            return "key \(node.key) does not sort after the key before it, \(previous)"
        }
        previous = node.key
        if let problem = violation(in: node.right, previous: &previous) { return problem }
        let leftHeight = Node.height(node.left)
        let rightHeight = Node.height(node.right)
        if node.height != Swift.max(leftHeight, rightHeight) + 1 {
            return "node \(node.key) has height \(node.height), its subtrees \(leftHeight) and \(rightHeight)"
        }
        if abs(leftHeight - rightHeight) > 1 {
            return "node \(node.key) is unbalanced: subtree heights \(leftHeight) and \(rightHeight)"
        }
        if node.count != Node.count(node.left) + Node.count(node.right) + 1 {
            return "node \(node.key) has a wrong count \(node.count)"
        }
        return nil
    }
}
