internal import Stratus

/// One comparison as filters.
extension WSFilterWriter {
    /// The filters of `comparison` (two for `BETWEEN`, else one), negated when under a `NOT`.
    func filters(_ comparison: PredicateComparison, negated: Bool) throws(WSTranslationError) -> [JSONValue] {
        let refusal = WSTranslationError(reason: "'\(negated ? "NOT " : "")\(comparison)' has no Web Services form")
        if comparison.isTokenSearch {
            guard !negated, comparison.quantifier == .direct, case .constant(.string(let words)) = comparison.right
            else { throw refusal }
            return [["comparator": "CONTAINS_ANY_TOKENS", "fieldValue": ["value": .string(words), "type": "STRING"]]]
        }
        if comparison.usesDistance {
            guard !negated, let near = near(comparison) else { throw refusal }
            return [near]
        }
        guard let keyed = try keyed(comparison) else { throw refusal }
        let (key, op, value) = keyed
        if comparison.options.contains(.diacriticInsensitive)
            || (comparison.options.contains(.caseInsensitive) && (op == .beginsWith || op.isOrdering))
        {
            throw WSTranslationError(
                reason: "'\(comparison)': Web Services filters have no [c] or [d] options (equality is always "
                    + "case-insensitive)")
        }
        if op == .between, comparison.quantifier == .direct, !negated, case .list(let bounds) = value,
            bounds.count == 2
        {
            return [
                filter(key, "GREATER_THAN_OR_EQUALS", bounds[0]), filter(key, "LESS_THAN_OR_EQUALS", bounds[1]),
            ]
        }
        guard let name = comparatorName(op, any: comparison.quantifier == .any, negated: negated),
            comparison.quantifier != .all
        else { throw refusal }
        return [filter(key, name, value)]
    }

    /// The comparator of `op` (over each item of a list field with `any`), negated when asked.
    private func comparatorName(_ op: PredicateOperator, any: Bool, negated: Bool) -> String? {
        let pair: (String, String)?
        switch (op, any) {
        case (.equalTo, false): pair = ("EQUALS", "NOT_EQUALS")
        case (.notEqualTo, false): pair = ("NOT_EQUALS", "EQUALS")
        case (.lessThan, false): pair = ("LESS_THAN", "GREATER_THAN_OR_EQUALS")
        case (.lessThanOrEqualTo, false): pair = ("LESS_THAN_OR_EQUALS", "GREATER_THAN")
        case (.greaterThan, false): pair = ("GREATER_THAN", "LESS_THAN_OR_EQUALS")
        case (.greaterThanOrEqualTo, false): pair = ("GREATER_THAN_OR_EQUALS", "LESS_THAN")
        case (.in, false): pair = ("IN", "NOT_IN")
        case (.contains, false), (.equalTo, true): pair = ("LIST_CONTAINS", "NOT_LIST_CONTAINS")
        case (.beginsWith, false): pair = ("BEGINS_WITH", "NOT_BEGINS_WITH")
        case (.in, true): pair = ("LIST_CONTAINS_ANY", "NOT_LIST_CONTAINS_ANY")
        case (.beginsWith, true): pair = ("LIST_MEMBER_BEGINS_WITH", "NOT_LIST_MEMBER_BEGINS_WITH")
        default: pair = nil
        }
        return pair.map { negated ? $0.1 : $0.0 }
    }

    /// The field, operator and constant of a comparison of a field with values, the field put
    /// on the left (`5 < n` is `n > 5`, `v IN list` is `list CONTAINS v`); `nil` for any other
    /// shape.
    private func keyed(_ comparison: PredicateComparison) throws(WSTranslationError) -> (
        String, PredicateOperator, PredicateValue
    )? {
        if case .key(let key) = comparison.left, let value = try constant(comparison.right) {
            return (key, comparison.operator, value)
        }
        guard case .key(let key) = comparison.right, comparison.quantifier == .direct,
            let value = try constant(comparison.left)
        else { return nil }
        switch comparison.operator {
        case .in: return (key, .contains, value)
        case .contains: return (key, .in, value)
        default: return comparison.operator.mirrored.map { (key, $0, value) }
        }
    }

    /// A constant operand's value: `now()` as ``now``, an aggregate as a list; `nil` for an
    /// operand that depends on the record.
    private func constant(_ operand: PredicateOperand) throws(WSTranslationError) -> PredicateValue? {
        switch operand {
        case .constant(let value): return value
        case .now: return .date(now)
        case .aggregate(let elements):
            var items: [PredicateValue] = []
            for element in elements {
                guard let item = try constant(element) else { return nil }
                items.append(item)
            }
            return .list(items)
        case .key, .evaluatedObject, .distance: return nil
        }
    }

    /// `distanceToLocation:fromLocation:(field, location) < km` (or `<=`, either way round) as
    /// `NEAR` with `distance` in metres; `nil` for another shape.
    private func near(_ comparison: PredicateComparison) -> JSONValue? {
        var (function, bound, op) = (comparison.left, comparison.right, comparison.operator)
        if case .distance = comparison.right, let mirrored = op.mirrored {
            (function, bound, op) = (comparison.right, comparison.left, mirrored)
        }
        guard comparison.quantifier == .direct, op == .lessThan || op == .lessThanOrEqualTo,
            case .distance(.key(let key), .constant(let location)) = function, case .location = location
        else { return nil }
        let kilometres: Double
        switch bound {
        case .constant(.int(let value)): kilometres = Double(value)
        case .constant(.double(let value)): kilometres = value
        default: return nil
        }
        guard case .object(var members) = filter(key, "NEAR", location) else { return nil }
        members["distance"] = .double(kilometres * 1000)
        return .object(members)
    }
}
