import StratusBackend

/// The record names of one zone that are in every requirement, where a requirement is a set of
/// ranges of one index (a name is in it when one of the ranges' groups holds it), ascending by
/// encoded name — the order of a scan — each once (decision 0019.8).
///
/// One requirement is a union (`list IN {a, b}`, a search of several words); several are an
/// intersection (`list CONTAINS {a, b}`, `self CONTAINS 'a' AND self CONTAINS 'b'`, or terms of
/// different indexes: `tags IN {a, b} AND k == 5`, decision 0019.9), walked by leapfrogging:
/// each requirement is moved to the first name not before the largest name seen, seeking past
/// what lies between, until all agree.
struct IndexNameWalk {
    private var requirements: [IndexUnionMerger]

    /// The walk of `requirements`, each the ranges of the index under its prefix, after the
    /// record named `after` (from the start when `nil`).
    init(requirements: [(prefix: [UInt8], bounds: [IndexBounds])], after: String?) {
        self.requirements = requirements.map { IndexUnionMerger(prefix: $0.prefix, bounds: $0.bounds, after: after) }
    }

    /// The next name in every requirement with its change-log position, or `nil` at the end.
    mutating func next(_ txn: any BackendReadTransaction) throws -> IndexUnionMerger.Entry? {
        guard !requirements.isEmpty else { return nil }
        var target: [UInt8]?
        var agreed = 0
        var index = 0
        var found: IndexUnionMerger.Entry?
        while agreed < requirements.count {
            guard let entry = try requirements[index].peek(atLeast: target, txn) else { return nil }
            if entry.nameKey == target {
                agreed += 1
            } else {
                target = entry.nameKey
                found = entry
                agreed = 1
            }
            index = (index + 1) % requirements.count
        }
        guard let found else { return nil }
        for i in requirements.indices { requirements[i].pop(found) }
        return found
    }
}
