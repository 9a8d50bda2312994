/// One side of a ``PredicateComparison``.
public indirect enum PredicateOperand: Sendable, Hashable {
    /// A field of the evaluated record, written as an identifier or substituted by `%K`.
    /// Key paths keep their dots (`owner.name`); CloudKit rejects them.
    case key(String)
    /// `self` / `SELF`: the evaluated record itself. CloudKit allows it only as
    /// `self CONTAINS 'tokens'` (a full-text search).
    case evaluatedObject
    /// A constant: a literal, an argument, or an aggregate `{…}` whose elements are all
    /// constants (which the parser folds into ``PredicateValue/list(_:)``).
    case constant(PredicateValue)
    /// An aggregate `{…}` with at least one element that is not a constant (`now()`, or a key,
    /// which CloudKit rejects).
    case aggregate([PredicateOperand])
    /// `now()`: the date and time at evaluation.
    case now
    /// `distanceToLocation:fromLocation:(location, fixedLocation)`: the distance in
    /// kilometres between the two operands, which must evaluate to locations.
    case distance(PredicateOperand, PredicateOperand)

    /// Whether this operand depends on the evaluated record (a key, `self`, a distance).
    public var dependsOnRecord: Bool {
        switch self {
        case .key, .evaluatedObject:
            return true
        case .constant, .now:
            return false
        case .aggregate(let elements):
            return elements.contains { $0.dependsOnRecord }
        case .distance(let location, let fixedLocation):
            return location.dependsOnRecord || fixedLocation.dependsOnRecord
        }
    }
}

extension PredicateOperand: CustomStringConvertible {
    /// The operand written in predicate format syntax.
    public var description: String {
        switch self {
        case .key(let key):
            return PredicateOperand.formatKey(key)
        case .evaluatedObject:
            return "SELF"
        case .constant(let value):
            return value.description
        case .aggregate(let elements):
            return "{" + elements.map(\.description).joined(separator: ", ") + "}"
        case .now:
            return "now()"
        case .distance(let location, let fixedLocation):
            return "distanceToLocation:fromLocation:(\(location), \(fixedLocation))"
        }
    }

    /// A key as a format string must write it: reserved words get a `#` prefix.
    static func formatKey(_ key: String) -> String {
        key.split(separator: ".", omittingEmptySubsequences: false).map { component in
            let text = String(component)
            return PredicateKeyword(text) == nil ? text : "#" + text
        }.joined(separator: ".")
    }
}
