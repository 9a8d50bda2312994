/// A comparison: `[quantifier] left operator[options] right`.
public struct PredicateComparison: Sendable, Hashable, CustomStringConvertible {
    /// `ANY`/`SOME`, `ALL`, or none.
    public var quantifier: PredicateQuantifier
    /// The left operand.
    public var left: PredicateOperand
    /// The operator.
    public var `operator`: PredicateOperator
    /// The `[c]`/`[d]` modifiers.
    public var options: PredicateStringOptions
    /// The right operand.
    public var right: PredicateOperand

    /// A comparison of `left` and `right` by `operator`.
    public init(
        _ left: PredicateOperand,
        _ operator: PredicateOperator,
        _ right: PredicateOperand,
        quantifier: PredicateQuantifier = .direct,
        options: PredicateStringOptions = []
    ) {
        self.quantifier = quantifier
        self.left = left
        self.operator = `operator`
        self.options = options
        self.right = right
    }

    /// Whether this is a full-text search, `self CONTAINS …`.
    public var isTokenSearch: Bool {
        left == .evaluatedObject && self.operator == .contains
    }

    /// Whether either operand uses `distanceToLocation:fromLocation:`.
    public var usesDistance: Bool {
        if case .distance = left { return true }
        if case .distance = right { return true }
        return false
    }

    /// The comparison in predicate format syntax.
    public var description: String {
        let prefix = quantifier == .direct ? "" : "\(quantifier) "
        return "\(prefix)\(left) \(self.operator)\(options) \(right)"
    }
}
