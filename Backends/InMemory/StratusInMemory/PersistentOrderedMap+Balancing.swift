/// The AVL algorithms, written as pure functions from trees to new trees.
///
/// None of them changes a node: each builds the few new nodes it needs (those on one root-to-leaf
/// path, O(log n)) and reuses every other subtree as it is. `key` arguments are always compared
/// in ``ByteOrder``.
extension PersistentOrderedMap.Node {
    typealias Node = PersistentOrderedMap.Node

    /// A balanced tree of `left`, then `key`, then `right`, whose heights may differ by up to 2
    /// (the most an insertion or removal below a balanced node can cause).
    ///
    /// One single or double rotation restores the AVL property.
    static func balanced(_ left: Node?, _ key: [UInt8], _ value: Value, _ right: Node?) -> Node {
        if let l = left, l.height > height(right) + 1 {
            if height(l.left) >= height(l.right) {
                // Single right rotation: l becomes the root.
                return Node(l.left, l.key, l.value, Node(l.right, key, value, right))
            }
            // Double rotation: l's right child becomes the root. It is taller than l.left, so
            // it is not empty.
            let lr = l.right!
            return Node(
                Node(l.left, l.key, l.value, lr.left), lr.key, lr.value,
                Node(lr.right, key, value, right))
        }
        if let r = right, r.height > height(left) + 1 {
            if height(r.right) >= height(r.left) {
                // Single left rotation: r becomes the root.
                return Node(Node(left, key, value, r.left), r.key, r.value, r.right)
            }
            // Double rotation: r's left child becomes the root.
            let rl = r.left!
            return Node(
                Node(left, key, value, rl.left), rl.key, rl.value,
                Node(rl.right, r.key, r.value, r.right))
        }
        return Node(left, key, value, right)
    }

    /// `tree` with `value` stored under `key`, replacing any previous value.
    static func inserting(_ key: [UInt8], _ value: Value, into tree: Node?) -> Node {
        guard let node = tree else { return Node(nil, key, value, nil) }
        switch ByteOrder.compare(key, node.key) {
        case .less:
            return balanced(inserting(key, value, into: node.left), node.key, node.value, node.right)
        case .greater:
            return balanced(node.left, node.key, node.value, inserting(key, value, into: node.right))
        case .equal:
            return Node(node.left, key, value, node.right)
        }
    }

    /// `tree` without `key`. Returns `tree` itself (no copy at all) when `key` is absent.
    static func removing(_ key: [UInt8], from tree: Node?) -> Node? {
        guard let node = tree else { return nil }
        switch ByteOrder.compare(key, node.key) {
        case .less:
            let left = removing(key, from: node.left)
            if left === node.left { return node }
            return balanced(left, node.key, node.value, node.right)
        case .greater:
            let right = removing(key, from: node.right)
            if right === node.right { return node }
            return balanced(node.left, node.key, node.value, right)
        case .equal:
            return concatenating(node.left, node.right)
        }
    }

    /// `tree` without its smallest key, and that key with its value.
    static func removingMinimum(
        of tree: Node
    ) -> (key: [UInt8], value: Value, rest: Node?) {
        guard let left = tree.left else { return (tree.key, tree.value, tree.right) }
        let minimum = removingMinimum(of: left)
        return (minimum.key, minimum.value, balanced(minimum.rest, tree.key, tree.value, tree.right))
    }

    /// A balanced tree of `left`, then `key`, then `right`, whatever their heights. Every key of
    /// `left` must be smaller than `key`, and every key of `right` larger.
    ///
    /// Walks down the taller tree's inner spine to a subtree of about the other tree's height,
    /// joins there, and rebalances on the way back up: O(|height(left) - height(right)| + 1).
    static func joined(_ left: Node?, _ key: [UInt8], _ value: Value, _ right: Node?) -> Node {
        if let l = left, l.height > height(right) + 1 {
            return balanced(l.left, l.key, l.value, joined(l.right, key, value, right))
        }
        if let r = right, r.height > height(left) + 1 {
            return balanced(joined(left, key, value, r.left), r.key, r.value, r.right)
        }
        return Node(left, key, value, right)
    }

    /// A balanced tree of every key of `left` then every key of `right`; every key of `left`
    /// must be smaller than every key of `right`.
    static func concatenating(_ left: Node?, _ right: Node?) -> Node? {
        guard let left else { return right }
        guard let right else { return left }
        let minimum = removingMinimum(of: right)
        return joined(left, minimum.key, minimum.value, minimum.rest)
    }

    /// The subtree of `tree` holding exactly its keys smaller than `bound`. O(log n).
    static func keys(of tree: Node?, lessThan bound: [UInt8]) -> Node? {
        guard let node = tree else { return nil }
        if ByteOrder.less(node.key, bound) {
            // The node and its whole left subtree stay; only part of the right one does.
            return joined(node.left, node.key, node.value, keys(of: node.right, lessThan: bound))
        }
        return keys(of: node.left, lessThan: bound)
    }

    /// The subtree of `tree` holding exactly its keys equal to or greater than `bound`. O(log n).
    static func keys(of tree: Node?, notLessThan bound: [UInt8]) -> Node? {
        guard let node = tree else { return nil }
        if ByteOrder.less(node.key, bound) {
            return keys(of: node.right, notLessThan: bound)
        }
        // The node and its whole right subtree stay; only part of the left one does.
        return joined(keys(of: node.left, notLessThan: bound), node.key, node.value, node.right)
    }
}
