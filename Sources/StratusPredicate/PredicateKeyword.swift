/// The reserved words of the predicate format syntax, matched case-insensitively as in
/// Foundation. A key that is spelled like one is written with a `#` prefix (`#size`).
enum PredicateKeyword: String, CaseIterable {
    case and = "AND"
    case or = "OR"
    case not = "NOT"
    case truePredicate = "TRUEPREDICATE"
    case falsePredicate = "FALSEPREDICATE"
    case any = "ANY"
    case someKeyword = "SOME"
    case all = "ALL"
    case noneKeyword = "NONE"
    case `in` = "IN"
    case between = "BETWEEN"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
    case matches = "MATCHES"
    case `true` = "TRUE"
    case `false` = "FALSE"
    case yes = "YES"
    case no = "NO"
    case `nil` = "NIL"
    case null = "NULL"
    case `self` = "SELF"

    /// The keyword `word` spells, ignoring case; `nil` when it is an ordinary identifier.
    init?(_ word: String) {
        guard let keyword = PredicateKeyword(rawValue: word.uppercased()) else { return nil }
        self = keyword
    }

    /// The comparison operator this keyword names, if it names one.
    var comparisonOperator: PredicateOperator? {
        switch self {
        case .in: return .in
        case .between: return .between
        case .beginsWith: return .beginsWith
        case .endsWith: return .endsWith
        case .contains: return .contains
        case .like: return .like
        case .matches: return .matches
        default: return nil
        }
    }
}
