import Foundation
import StratusBackend
import StratusPredicate

/// How a query reads its candidates (decision 0019): the value index of one field, inside
/// bounds taken from the predicate. The predicate is still evaluated on every record read.
struct QueryPlan: Sendable, Equatable {
    /// How narrow a plan's bounds are; the planner drives by the narrowest.
    enum Kind: Int, Comparable, Sendable {
        /// `==` or `IN`: one group per constant.
        case equality
        /// `BETWEEN`, `BEGINSWITH`, or ranges from both sides.
        case closedRange
        /// `<`, `<=`, `>`, `>=`.
        case halfOpenRange

        static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }

    /// Which of the field's indexes a plan reads.
    enum Index: Sendable, Equatable {
        /// The value index: values in sort order.
        case value
        /// The match index: strings folded, one entry per list element (decision 0019.5).
        case match
    }

    /// How a plan walks its groups and in which order its records come.
    enum Walk: Sendable, Equatable {
        /// Group after group in index order, a group's records by zone and name; a record is
        /// in at most one of the plan's groups.
        case groups
        /// Group after group in index order, where a record can be in several groups (a
        /// list's elements in a prefix range): each record is taken at the first of its
        /// groups inside the bounds only.
        case firstGroup
        /// Several exact groups (`list IN {a, b}`, a search of several words) merged by zone
        /// and record name, each record once: the scan's order, continued by the scan's
        /// keyset cursor (decision 0019.8).
        case union
        /// Several exact groups a record must all be in (`list CONTAINS {a, b}`,
        /// `self CONTAINS 'a' AND self CONTAINS 'b'`), intersected by record name: the scan's
        /// order, continued by the scan's keyset cursor.
        case intersection
    }

    /// The field's key as the predicate writes it (`creationDate`).
    var key: String
    var index: Index = .value
    var walk: Walk = .groups
    /// Whether a record must be in a group of every bound (membership in a list, a token):
    /// two such plans on one field intersect.
    var membership = false
    /// The index's (canonical) field name (`___createTime`).
    var field: String
    var kind: Kind
    /// The groups to read, ascending, disjoint.
    var bounds: [IndexBounds]
    /// Plans of other indexes (or other groups of this one) whose records a record must also
    /// be in: an `AND` of terms that each read exact groups, walked together by record name
    /// (decision 0019.9). Empty when this plan drives alone.
    var intersected: [QueryPlan] = []

    /// The plan for `predicate` over a type whose fields have `fieldType` (`nil`: no such
    /// field), or `nil` when no conjunct can be bounded. With `sortField`, only a value-index
    /// plan on that (canonical) field is wanted: a sorted query walks its sort index, and can
    /// bound it. With `field`, only a plan on that field (a continued query keeps its field).
    static func make(
        for predicate: QueryPredicate, sortField: String? = nil, field: String? = nil,
        fieldType: (String) -> SchemaType?
    ) -> QueryPlan? {
        let comparisons: [PredicateComparison]
        switch predicate {
        case .comparison(let comparison): comparisons = [comparison]
        case .and(let subpredicates):
            comparisons = subpredicates.compactMap { if case .comparison(let c) = $0 { return c } else { return nil } }
        default: return nil
        }
        var plans: [QueryPlan] = []
        for comparison in comparisons {
            guard let plan = QueryPlan(comparison, fieldType: fieldType) else { continue }
            if let sortField, plan.field != sortField || plan.index != .value { continue }
            if let field, plan.field != field { continue }
            if let index = plans.firstIndex(where: { $0.field == plan.field && $0.index == plan.index }) {
                // A list has several entries in its match index: `tags CONTAINS 'a' AND tags
                // CONTAINS 'b'` is in both groups, whose ranges do not intersect. Memberships
                // intersect by record; other terms of one match index (`tags CONTAINS 'a' AND
                // tags IN {b, c}`) are walked together by name below; a continued query keeps
                // the first conjunct as its driver, the evaluator checking the other.
                if plan.index == .match {
                    if let both = plans[index].intersection(with: plan) {
                        plans[index] = both
                    } else if sortField == nil && field == nil {
                        plans.append(plan)
                    }
                    continue
                }
                plans[index].narrow(by: plan)
            } else {
                plans.append(plan)
            }
        }
        // Several terms that each read exact groups: their records are walked together by name,
        // an intersection whatever the groups' sizes (decision 0019.9).
        let exact = plans.filter(\.walksByName)
        if sortField == nil && field == nil && exact.count > 1 {
            return exact[0].intersecting(Array(exact.dropFirst()))
        }
        // The narrowest kind; ties go to the conjunct written first (a stable minimum).
        return plans.enumerated().min { ($0.element.kind, $0.offset) < ($1.element.kind, $1.offset) }?.element
    }

    /// Whether a record met in `group` is taken there: at the first of its keys inside the
    /// bounds (``Walk/firstGroup``).
    func admitsFirstGroup(_ stored: StoredRecord, _ group: [UInt8]) -> Bool {
        IndexValue.isFirstKey(group, of: DatabaseContext.indexKeys(stored, field: field, index: index), inside: bounds)
    }

    /// Whether the plan walks in the scan's order (zone, then record name) with its cursor.
    var walksInScanOrder: Bool { walk == .union || walk == .intersection || !intersected.isEmpty }

    /// Whether the plan reads exact groups, each of whose records come by name (equality, `IN`,
    /// membership, words; not ranges, which hold a group per value): it can be walked by
    /// record name with others (``IndexNameWalk``).
    var walksByName: Bool { kind == .equality && walk != .firstGroup }

    /// The plans a record must be in: this one's own groups, then each of ``intersected``.
    var components: [QueryPlan] {
        var own = self
        own.intersected = []
        return [own] + intersected
    }

    /// This plan's components walked by name with `others`' (no others: this plan alone).
    func intersecting(_ others: [QueryPlan]) -> QueryPlan {
        var both = self
        both.intersected = Array((components + others.flatMap(\.components)).dropFirst())
        return both
    }

    /// The walk's requirements: sets of bounds a record must be in one of (``IndexNameWalk``).
    var requirements: [[IndexBounds]] { walk == .intersection ? bounds.map { [$0] } : [bounds] }

    /// The records in both membership plans of one field (`nil` when either is not one).
    fileprivate func intersection(with other: QueryPlan) -> QueryPlan? {
        guard membership, other.membership else { return nil }
        var both = self
        both.bounds = QueryPlan.distinct(bounds + other.bounds)
        if both.bounds.count > 1 { both.walk = .intersection }
        return both
    }

    /// `bounds` without repeats, ascending (each stays a requirement of its own: not merged).
    fileprivate static func distinct(_ bounds: [IndexBounds]) -> [IndexBounds] {
        Set(bounds).sorted { KeyRange.less($0.lower, $1.lower) }
    }

    /// Both plans' bounds (two conjuncts on one field).
    private mutating func narrow(by other: QueryPlan) {
        bounds = IndexBounds.intersection(bounds, other.bounds)
        kind = min(kind, other.kind, .closedRange)
    }
}

extension QueryPlan {
    /// The plan of one comparison `key op constant` (either way round, with or without `ANY`),
    /// if its field's index can bound it.
    fileprivate init?(_ comparison: PredicateComparison, fieldType: (String) -> SchemaType?) {
        if comparison.isTokenSearch {
            guard comparison.quantifier == .direct, case .constant(.string(let words)) = comparison.right else {
                return nil
            }
            // One word: its group of the token index. Several words match records with any of
            // them: the union of their groups (words that are all stop words: no group, no match).
            let tokens = PredicateTokenizer.tokenize(words).sorted()
            self.init(
                key: IndexValue.tokensField, index: .match, walk: tokens.count == 1 ? .groups : .union,
                membership: tokens.count == 1, field: IndexValue.tokensField, kind: .equality,
                bounds: IndexBounds.normalized(tokens.map(IndexValue.tokenBounds)))
            return
        }
        guard let (key, op, constant) = QueryPlan.fieldComparison(comparison) else { return nil }
        let field = IndexValue.canonicalField(key)
        guard let type = field.hasPrefix("___") ? SchemaType.timestamp : fieldType(field) else { return nil }
        if let (walk, kind, bounds) = QueryPlan.matchPlan(op, constant, type: type) {
            let isList = type != .string
            self.init(
                key: key, index: .match, walk: walk,
                membership: isList && (walk == .intersection || (walk == .groups && Set(bounds).count == 1)),
                field: field, kind: kind,
                bounds: walk == .intersection ? QueryPlan.distinct(bounds) : IndexBounds.normalized(bounds))
            return
        }
        guard comparison.quantifier == .direct, IndexValue.isSortable(type),
            let (kind, bounds) = QueryPlan.bounds(op, constant, type: type, options: comparison.options)
        else { return nil }
        self.init(key: key, field: field, kind: kind, bounds: IndexBounds.normalized(bounds))
    }

    /// A comparison as `key op constant`: mirrored when the constant is on the left, `c IN list`
    /// as `list CONTAINS c`, `ANY {a, b} = key` as `key IN {a, b}`; `ANY key op c` only for the
    /// operators whose meaning `ANY` keeps (`=`, `IN`, `BEGINSWITH`: some element matches).
    private static func fieldComparison(_ comparison: PredicateComparison)
        -> (key: String, op: PredicateOperator, constant: PredicateValue)?
    {
        let op = comparison.operator
        switch (comparison.quantifier, comparison.left, comparison.right) {
        case (.direct, .key(let key), .constant(let value)):
            return (key, op, value)
        case (.any, .key(let key), .constant(let value)) where [.equalTo, .in, .beginsWith].contains(op):
            return (key, op, value)
        case (.direct, .constant(let value), .key(let key)) where op == .in:
            return (key, .contains, value)  // `c IN list`: membership
        case (.direct, .constant(let value), .key(let key)):
            return op.mirrored.map { (key, $0, value) }
        case (.any, .constant(.list(let values)), .key(let key)) where op == .equalTo:
            return (key, .in, .list(values))
        default:
            return nil
        }
    }

    /// How a comparison reads a match index (decision 0019.5, 0019.8): string `==`/`IN` on a
    /// string field; membership of one constant in a list field (`list CONTAINS c`, `c IN list`,
    /// `ANY list = c`); `list CONTAINS {a, b}`, the intersection of their groups; `list IN {a, b}` (some
    /// element is one of them), the union of their groups; `ANY list BEGINSWITH p`, the range
    /// of elements whose folded form starts with p's, each record at its first such element.
    private static func matchPlan(_ op: PredicateOperator, _ constant: PredicateValue, type: SchemaType)
        -> (Walk, Kind, [IndexBounds])?
    {
        guard IndexValue.hasMatchIndex(type) else { return nil }
        let isList = type != .string
        switch (op, constant) {
        case (.equalTo, .string) where !isList:
            return IndexValue.matchBounds(constant, type: type).map { (.groups, .equality, [$0]) }
        case (.in, .list(let values)):
            let bounds = values.compactMap { IndexValue.matchBounds($0, type: type) }
            guard bounds.count == values.count else { return nil }
            // A string is in one group; a list's record can be in several of them.
            let walk: Walk = isList && Set(bounds).count > 1 ? .union : .groups
            return (walk, .equality, bounds)
        case (.contains, .list(let values)) where isList:
            // Every constant is an element: the records in all their groups.
            let bounds = values.compactMap { IndexValue.matchBounds($0, type: type) }
            guard bounds.count == values.count, !bounds.isEmpty else { return nil }
            return (Set(bounds).count > 1 ? .intersection : .groups, .equality, distinct(bounds))
        case (.contains, _) where isList, (.equalTo, _) where isList:
            if case .list = constant { return nil }
            return IndexValue.matchBounds(constant, type: type).map { (.groups, .equality, [$0]) }
        case (.beginsWith, .string(let prefix)) where type == .stringList && IndexValue.foldsAlike(prefix):
            return (.firstGroup, .closedRange, [IndexValue.foldedPrefixBounds(prefix)])
        default:
            return nil
        }
    }

    /// The groups a constant equal to a field of scalar `type` can be in (`nil`: not indexable).
    static func equalityBounds(_ constant: PredicateValue, type: SchemaType) -> IndexBounds? {
        guard let e = IndexBoundsElement(constant, type: type), e.isExact else { return nil }
        return .startingWith(e.bytes)
    }

    /// The bounds of `field op constant` for a field of `type`.
    private static func bounds(
        _ op: PredicateOperator, _ constant: PredicateValue, type: SchemaType, options: PredicateStringOptions
    ) -> (Kind, [IndexBounds])? {
        let element = { (value: PredicateValue) in IndexBoundsElement(value, type: type) }
        switch op {
        case .equalTo:
            guard let e = element(constant), e.isExact else { return nil }
            return (.equality, [.startingWith(e.bytes)])
        case .in:
            guard case .list(let values) = constant else { return nil }
            var ranges: [IndexBounds] = []
            for value in values {
                guard let e = element(value), e.isExact else { return nil }
                ranges.append(.startingWith(e.bytes))
            }
            return (.equality, ranges)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard options.isEmpty, let e = element(constant), e.isOrdered else { return nil }
            let all = IndexBoundsElement.all(type)
            let below = op == .lessThan || op == .lessThanOrEqualTo
            return (
                .halfOpenRange,
                [below ? IndexBounds(lower: all.lower, upper: e.end) : IndexBounds(lower: e.bytes, upper: all.upper)]
            )
        case .between:
            guard options.isEmpty, case .list(let pair) = constant, pair.count == 2,
                let low = element(pair[0]), let high = element(pair[1]), low.isOrdered, high.isOrdered
            else { return nil }
            return (.closedRange, [IndexBounds(lower: low.bytes, upper: high.end)])
        case .beginsWith:
            guard options.isEmpty, type == .string, case .string(let prefix) = constant else { return nil }
            return (.closedRange, [.startingWith(IndexValue.stringElement(prefix, terminated: false))])
        default:
            return nil
        }
    }
}

/// The index bytes of a constant compared with a field of one type: a prefix every indexed
/// value the constant can equal or bound starts with (decision 0019.1).
private struct IndexBoundsElement {
    var bytes: [UInt8]
    /// Whether the bytes name the constant's own group(s) (not a string's 200-byte prefix).
    var isExact: Bool
    /// Whether the field's values are ordered by these bytes (not references).
    var isOrdered: Bool
    /// Just after every group starting with the bytes.
    var end: [UInt8] { KeyRange.successor(ofPrefix: bytes) }

    init?(_ value: PredicateValue, type: SchemaType) {
        switch (type, value) {
        case (.number, .int(let v)): self = .number(Double(v))
        case (.number, .double(let v)) where !v.isNaN: self = .number(v)
        case (.number, .bool(let v)): self = .number(v ? 1 : 0)
        case (.timestamp, .date(let d)): self = .number(d.timeIntervalSinceReferenceDate)
        case (.string, .string(let s)):
            self.init(bytes: IndexValue.stringElement(s, terminated: false), isExact: false, isOrdered: true)
        case (.reference, .reference(let name, _, _)), (.reference, .string(let name)):
            var key = OrderedKey()
            key.append(name)
            self.init(bytes: key.bytes, isExact: true, isOrdered: false)
        default:
            return nil
        }
    }

    private init(bytes: [UInt8], isExact: Bool, isOrdered: Bool) {
        self.bytes = bytes
        self.isExact = isExact
        self.isOrdered = isOrdered
    }

    /// A number's or a date's element: its double (an integer's group continues after it).
    private static func number(_ value: Double) -> IndexBoundsElement {
        var key = OrderedKey()
        key.append(double: value)
        return IndexBoundsElement(bytes: key.bytes, isExact: true, isOrdered: true)
    }

    /// Every non-null value of a field of `type` (null sorts first, alone).
    static func all(_ type: SchemaType) -> IndexBounds {
        let tag = type == .string ? OrderedKey.stringTag : OrderedKey.doubleTag
        return IndexBounds(lower: [tag], upper: [tag + 1])
    }
}
