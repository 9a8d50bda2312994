/// A parsed predicate: the tree of a format string such as
/// `"rating >= %d AND NOT (genre IN %@)"`, with every argument already converted to a
/// ``PredicateValue``.
///
/// Create one with ``parse(format:arguments:)``, or let `NSPredicate(format:…)` parse it
/// and read it back with `NSPredicate.stratusPredicate`. Check it with
/// ``validateForCloudKit()``, run it with ``evaluate(_:now:)``.
public indirect enum QueryPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE`, `NSPredicate(value: true)`: every record.
    case `true`
    /// `FALSEPREDICATE`, `NSPredicate(value: false)`: no record.
    case `false`
    /// `AND`, `&&`: every subpredicate holds. The parser flattens chains (`a AND b AND c` is
    /// one node with three subpredicates).
    case and([QueryPredicate])
    /// `OR`, `||` (rejected by CloudKit): some subpredicate holds. Flattened like ``and(_:)``.
    case or([QueryPredicate])
    /// `NOT`, `!`: the subpredicate does not hold.
    case not(QueryPredicate)
    /// A comparison.
    case comparison(PredicateComparison)
}

extension QueryPredicate: CustomStringConvertible {
    /// The predicate in format syntax, with arguments written as literals (see
    /// ``PredicateValue/description``). Parsing it again gives an equal expression, except for
    /// references, locations and bytes, which have no literal syntax.
    public var description: String {
        switch self {
        case .true:
            return "TRUEPREDICATE"
        case .false:
            return "FALSEPREDICATE"
        case .and(let subpredicates):
            return subpredicates.map { $0.parenthesisedDescription }.joined(separator: " AND ")
        case .or(let subpredicates):
            return subpredicates.map { $0.parenthesisedDescription }.joined(separator: " OR ")
        case .not(let subpredicate):
            return "NOT " + subpredicate.parenthesisedDescription
        case .comparison(let comparison):
            return comparison.description
        }
    }

    private var parenthesisedDescription: String {
        switch self {
        case .and, .or:
            return "(\(description))"
        default:
            return description
        }
    }
}
