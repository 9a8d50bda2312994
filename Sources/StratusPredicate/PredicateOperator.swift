/// The operator of a ``PredicateComparison``.
///
/// Every operator of Foundation's predicate syntax that CloudKit programs write is parsed,
/// including the ones CloudKit rejects (``endsWith``, ``like``, ``matches``), so that
/// ``QueryPredicate/validateForCloudKit()`` can name them.
public enum PredicateOperator: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `=`, `==`.
    case equalTo = "=="
    /// `!=`, `<>`.
    case notEqualTo = "!="
    /// `<`.
    case lessThan = "<"
    /// `<=`, `=<`.
    case lessThanOrEqualTo = "<="
    /// `>`.
    case greaterThan = ">"
    /// `>=`, `=>`.
    case greaterThanOrEqualTo = ">="
    /// `BETWEEN {low, high}` (inclusive at both ends).
    case between = "BETWEEN"
    /// `BEGINSWITH`.
    case beginsWith = "BEGINSWITH"
    /// `ENDSWITH` (rejected by CloudKit).
    case endsWith = "ENDSWITH"
    /// `CONTAINS`: list membership, or a full-text search with `self` on the left.
    case contains = "CONTAINS"
    /// `IN`: membership of the left side in the list on the right.
    case `in` = "IN"
    /// `LIKE` (rejected by CloudKit).
    case like = "LIKE"
    /// `MATCHES` (rejected by CloudKit).
    case matches = "MATCHES"

    /// The operator as a format string writes it (`==`, `BEGINSWITH`, …).
    public var description: String { rawValue }

    /// Whether this is one of `<`, `<=`, `>`, `>=`.
    public var isOrdering: Bool {
        switch self {
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo: return true
        default: return false
        }
    }

    /// The operator that gives the same result with the operands swapped (`<` ↔ `>`), for the
    /// symmetric and ordering operators; `nil` for the others.
    public var mirrored: PredicateOperator? {
        switch self {
        case .equalTo, .notEqualTo: return self
        case .lessThan: return .greaterThan
        case .lessThanOrEqualTo: return .greaterThanOrEqualTo
        case .greaterThan: return .lessThan
        case .greaterThanOrEqualTo: return .lessThanOrEqualTo
        default: return nil
        }
    }
}
