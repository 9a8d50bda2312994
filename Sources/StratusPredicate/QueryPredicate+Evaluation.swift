import Foundation

extension QueryPredicate {
    /// Whether `subject` matches, with CloudKit's semantics.
    ///
    /// - String equality (`=`, `!=`, `IN`, membership) ignores case (and diacritics with
    ///   `[d]`); `BEGINSWITH` and `<`, `<=`, `>`, `>=` on strings are case-sensitive unless
    ///   `[c]` is given.
    /// - Numbers compare numerically across integers, doubles and Booleans; dates by time;
    ///   references by record name, zone name and owner name (a string equals a reference
    ///   whose record name it is, case-sensitively).
    /// - `list CONTAINS v`, `v IN list` and `ANY list = v` are the same membership test;
    ///   a direct comparison of a list field with a single value (`list = v`) is
    ///   membership too, `list != v` is non-membership.
    /// - A field that is absent or null never satisfies a comparison, negated or not
    ///   (three-valued logic), except `= nil` (true) and `!= nil` (false).
    /// - `self CONTAINS 'words'` matches when any token of the words (see
    ///   ``PredicateTokenizer``) is a token of the subject's ``PredicateSubject/searchableText``;
    ///   words that are all stop words match nothing.
    /// - `distanceToLocation:fromLocation:(f, p) < r` compares the great-circle distance in
    ///   kilometres (``PredicateLocation/distanceKilometres(to:)``).
    /// - Constructs CloudKit rejects are evaluated where they have an obvious meaning (`OR`,
    ///   `ALL`, `ENDSWITH`); `LIKE` and `MATCHES` never match; `CONTAINS` on a field that is
    ///   not a list never matches (``evaluateStrictly(_:now:)`` throws instead).
    ///
    /// - Parameter now: the time `now()` stands for; pass one date for a whole query.
    public func evaluate(_ subject: some PredicateSubject, now: Date = Date()) -> Bool {
        var evaluator = PredicateEvaluator(subject: subject, now: now, strict: false)
        return (try? evaluator.evaluate(self)) == .yes
    }

    /// Like ``evaluate(_:now:)``, but throws where the record's field types make the
    /// predicate invalid for CloudKit: `CONTAINS` or `IN` whose list side is a field holding
    /// a single value (`name CONTAINS 'x'` on a string field), `BEGINSWITH` on a field that is
    /// not a string, `distanceToLocation:fromLocation:` on a field that is not a location.
    /// Every subpredicate is evaluated, so the error does not depend on evaluation order.
    ///
    /// - Throws: ``QueryPredicateError`` with code ``QueryPredicateError/Code/evaluation``.
    public func evaluateStrictly(_ subject: some PredicateSubject, now: Date = Date()) throws(QueryPredicateError)
        -> Bool
    {
        var evaluator = PredicateEvaluator(subject: subject, now: now, strict: true)
        return try evaluator.evaluate(self) == .yes
    }
}

/// Evaluates expressions against one subject.
struct PredicateEvaluator<Subject: PredicateSubject> {
    /// An operand's value for the subject.
    private enum Resolved {
        /// The field is absent or null.
        case absent
        /// A value (``PredicateValue/null`` only for an explicit `nil` constant).
        case value(PredicateValue)
        /// `SELF`.
        case record
    }

    let subject: Subject
    let now: Date
    let strict: Bool
    private var recordTokens: Set<String>?

    init(subject: Subject, now: Date, strict: Bool) {
        self.subject = subject
        self.now = now
        self.strict = strict
    }

    mutating func evaluate(_ expression: QueryPredicate) throws(QueryPredicateError) -> PredicateTruth {
        switch expression {
        case .true:
            return .yes
        case .false:
            return .no
        case .and(let subpredicates):
            var truths: [PredicateTruth] = []
            for subpredicate in subpredicates {
                let truth = try evaluate(subpredicate)
                if truth == .no && !strict { return .no }
                truths.append(truth)
            }
            return .all(truths)
        case .or(let subpredicates):
            var truths: [PredicateTruth] = []
            for subpredicate in subpredicates {
                let truth = try evaluate(subpredicate)
                if truth == .yes && !strict { return .yes }
                truths.append(truth)
            }
            return .any(truths)
        case .not(let subpredicate):
            return !(try evaluate(subpredicate))
        case .comparison(let comparison):
            return try evaluate(comparison)
        }
    }

    // MARK: - Operands

    private func resolve(_ operand: PredicateOperand) throws(QueryPredicateError) -> Resolved {
        switch operand {
        case .key(let key):
            guard let value = subject.predicateValue(forKey: key), !value.isNull else { return .absent }
            return .value(value)
        case .evaluatedObject:
            return .record
        case .constant(let value):
            return .value(value)
        case .now:
            return .value(.date(now))
        case .aggregate(let elements):
            var values: [PredicateValue] = []
            for element in elements {
                guard case .value(let value) = try resolve(element) else {
                    values.append(.null)
                    continue
                }
                values.append(value)
            }
            return .value(.list(values))
        case .distance(let locationOperand, let fixedOperand):
            guard case .value(let location) = try resolve(locationOperand),
                case .value(let fixed) = try resolve(fixedOperand)
            else { return .absent }
            guard let from = PredicateLocation(location), let to = PredicateLocation(fixed) else {
                if strict {
                    let culprit =
                        PredicateLocation(location) == nil ? (locationOperand, location) : (fixedOperand, fixed)
                    throw QueryPredicateError(
                        .evaluation,
                        "distanceToLocation:fromLocation: needs locations, but \(PredicateEvaluator.name(of: culprit.0)) holds a value of type \(culprit.1.kindName)"
                    )
                }
                return .absent
            }
            return .value(.double(from.distanceKilometres(to: to)))
        }
    }

    private static func name(of operand: PredicateOperand) -> String {
        if case .key(let key) = operand { return "the field '\(key)'" }
        return "'\(operand)'"
    }

    // MARK: - Comparisons

    private mutating func evaluate(_ comparison: PredicateComparison) throws(QueryPredicateError) -> PredicateTruth {
        if comparison.isTokenSearch {
            return tokenSearch(comparison.right)
        }
        let left = try resolve(comparison.left)
        let right = try resolve(comparison.right)
        if case .record = left { return .unknown }
        if case .record = right { return .unknown }
        switch comparison.quantifier {
        case .direct:
            return try compare(left, right, comparison)
        case .any, .all:
            guard case .value(let value) = left else { return .unknown }
            let elements = value.listElements ?? [value]
            var truths: [PredicateTruth] = []
            for element in elements {
                truths.append(try compare(.value(element), right, comparison, element: true))
            }
            return comparison.quantifier == .any ? .any(truths) : .all(truths)
        }
    }

    private mutating func tokenSearch(_ operand: PredicateOperand) -> PredicateTruth {
        guard case .constant(.string(let words)) = operand else { return .unknown }
        let wanted = PredicateTokenizer.tokenize(words)
        if wanted.isEmpty { return .no }
        if recordTokens == nil {
            recordTokens = PredicateTokenizer.tokenize(subject.searchableText)
        }
        return PredicateTruth(!wanted.isDisjoint(with: recordTokens ?? []))
    }

    /// Compares resolved operands; `element` is true when `left` is one element of an `ANY`.
    private func compare(
        _ left: Resolved,
        _ right: Resolved,
        _ comparison: PredicateComparison,
        element: Bool = false
    ) throws(QueryPredicateError) -> PredicateTruth {
        let comparisonOperator = comparison.operator
        let options = comparison.options
        guard case .value(let l) = left, case .value(let r) = right else {
            // An absent field: only `= nil` and `!= nil` have an answer.
            let other: Resolved
            if case .absent = left { other = right } else { other = left }
            if case .value(.null) = other {
                if comparisonOperator == .equalTo { return .yes }
                if comparisonOperator == .notEqualTo { return .no }
            }
            return .unknown
        }
        if l.isNull || r.isNull {
            let bothNull = l.isNull && r.isNull
            switch comparisonOperator {
            case .equalTo: return PredicateTruth(bothNull)
            case .notEqualTo: return PredicateTruth(!bothNull)
            default: return .unknown
            }
        }
        switch comparisonOperator {
        case .equalTo, .notEqualTo:
            let equal: Bool
            if let list = l.listElements, r.listElements == nil {
                equal = PredicateEvaluator.isMember(r, of: list, options)
            } else if let list = r.listElements, l.listElements == nil {
                equal = PredicateEvaluator.isMember(l, of: list, options)
            } else {
                equal = PredicateEvaluator.equal(l, r, options) ?? false
            }
            return PredicateTruth(comparisonOperator == .equalTo ? equal : !equal)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            if let list = l.listElements, r.listElements == nil {
                return .any(list.map { PredicateEvaluator.order($0, r, comparisonOperator, options) })
            }
            return PredicateEvaluator.order(l, r, comparisonOperator, options)
        case .between:
            guard let bounds = r.listElements, bounds.count == 2 else { return .unknown }
            let values = l.listElements ?? [l]
            return .any(
                values.map { value in
                    .all([
                        PredicateEvaluator.order(value, bounds[0], .greaterThanOrEqualTo, options),
                        PredicateEvaluator.order(value, bounds[1], .lessThanOrEqualTo, options),
                    ])
                })
        case .beginsWith, .endsWith:
            guard case .string(let affix) = r else { return .unknown }
            let values = l.listElements ?? [l]
            var truths: [PredicateTruth] = []
            for value in values {
                guard case .string(let string) = value else {
                    if strict {
                        throw QueryPredicateError(
                            .evaluation,
                            "\(comparisonOperator) needs a string field, but \(PredicateEvaluator.name(of: comparison.left)) holds a value of type \(value.kindName)"
                        )
                    }
                    truths.append(.unknown)
                    continue
                }
                let s = PredicateEvaluator.prepare(string, options)
                let a = PredicateEvaluator.prepare(affix, options)
                truths.append(PredicateTruth(comparisonOperator == .beginsWith ? s.hasPrefix(a) : s.hasSuffix(a)))
            }
            return .any(truths)
        case .contains:
            return try membership(
                element: r, container: l, containerOperand: element ? nil : comparison.left, comparison)
        case .in:
            return try membership(element: l, container: r, containerOperand: comparison.right, comparison)
        case .like, .matches:
            return .unknown
        }
    }

    /// `element IN container` / `container CONTAINS element`.
    private func membership(
        element: PredicateValue,
        container: PredicateValue,
        containerOperand: PredicateOperand?,
        _ comparison: PredicateComparison
    ) throws(QueryPredicateError) -> PredicateTruth {
        let options = comparison.options
        guard let list = container.listElements else {
            if strict, let containerOperand, case .key(let key) = containerOperand {
                throw QueryPredicateError(
                    .evaluation,
                    "\(comparison.operator) on the field '\(key)', which holds a value of type \(container.kindName) and not a list, is not supported: \(comparison.operator) tests list membership (use self CONTAINS for full-text search, BEGINSWITH for prefixes)"
                )
            }
            return .unknown
        }
        if let wanted = element.listElements {
            if comparison.operator == .contains {
                // list CONTAINS {a, b}: every element is a member.
                return PredicateTruth(wanted.allSatisfy { PredicateEvaluator.isMember($0, of: list, options) })
            }
            // listField IN {a, b}: some element is a member.
            return PredicateTruth(wanted.contains { PredicateEvaluator.isMember($0, of: list, options) })
        }
        return PredicateTruth(PredicateEvaluator.isMember(element, of: list, options))
    }

    // MARK: - Values

    private static func isMember(_ value: PredicateValue, of list: [PredicateValue], _ options: PredicateStringOptions)
        -> Bool
    {
        list.contains { equal(value, $0, options) == true }
    }

    /// A string as a comparison with `options` sees it.
    private static func prepare(_ string: String, _ options: PredicateStringOptions) -> String {
        var foldingOptions: String.CompareOptions = []
        if options.contains(.caseInsensitive) { foldingOptions.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { foldingOptions.insert(.diacriticInsensitive) }
        return foldingOptions.isEmpty ? string : string.folding(options: foldingOptions, locale: nil)
    }

    /// Equality; strings always ignore case. `nil` when the kinds cannot be compared.
    static func equal(_ a: PredicateValue, _ b: PredicateValue, _ options: PredicateStringOptions) -> Bool? {
        switch (a, b) {
        case (.string(let x), .string(let y)):
            let equalityOptions = options.union(.caseInsensitive)
            return prepare(x, equalityOptions) == prepare(y, equalityOptions)
        case (.date(let x), .date(let y)):
            return x == y
        case (.bytes(let x), .bytes(let y)):
            return x == y
        case (.reference, .reference):
            return a == b
        case (.reference(let recordName, _, _), .string(let string)),
            (.string(let string), .reference(let recordName, _, _)):
            return recordName == string
        case (.location, .location):
            return a == b
        case (.list(let x), .list(let y)):
            guard x.count == y.count else { return false }
            return zip(x, y).allSatisfy { equal($0, $1, options) == true }
        case (.null, .null):
            return true
        default:
            guard let x = PredicateNumber(a), let y = PredicateNumber(b) else { return nil }
            return x.compare(y) == .orderedSame
        }
    }

    /// An ordering comparison; `unknown` when the kinds have no order.
    static func order(
        _ a: PredicateValue,
        _ b: PredicateValue,
        _ comparisonOperator: PredicateOperator,
        _ options: PredicateStringOptions
    ) -> PredicateTruth {
        let result: ComparisonResult?
        switch (a, b) {
        case (.string(let x), .string(let y)):
            let x = prepare(x, options)
            let y = prepare(y, options)
            result = x < y ? .orderedAscending : (y < x ? .orderedDescending : .orderedSame)
        case (.date(let x), .date(let y)):
            result = x < y ? .orderedAscending : (y < x ? .orderedDescending : .orderedSame)
        default:
            if let x = PredicateNumber(a), let y = PredicateNumber(b) {
                result = x.compare(y)
            } else {
                result = nil
            }
        }
        guard let result else { return .unknown }
        switch comparisonOperator {
        case .lessThan: return PredicateTruth(result == .orderedAscending)
        case .lessThanOrEqualTo: return PredicateTruth(result != .orderedDescending)
        case .greaterThan: return PredicateTruth(result == .orderedDescending)
        case .greaterThanOrEqualTo: return PredicateTruth(result != .orderedAscending)
        default: return .unknown
        }
    }
}
