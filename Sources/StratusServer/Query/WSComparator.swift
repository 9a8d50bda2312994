/// The comparators of a filter dictionary (Apple's *Filter Dictionary*, CloudKit JS's
/// `QueryFilterComparator`), each with the predicate the engine evaluates for it.
enum WSComparator: String, CaseIterable, Sendable {
    case equals = "EQUALS"
    case notEquals = "NOT_EQUALS"
    case lessThan = "LESS_THAN"
    case lessThanOrEquals = "LESS_THAN_OR_EQUALS"
    case greaterThan = "GREATER_THAN"
    case greaterThanOrEquals = "GREATER_THAN_OR_EQUALS"
    case near = "NEAR"
    case containsAllTokens = "CONTAINS_ALL_TOKENS"
    case containsAnyTokens = "CONTAINS_ANY_TOKENS"
    case `in` = "IN"
    case notIn = "NOT_IN"
    case listContains = "LIST_CONTAINS"
    case notListContains = "NOT_LIST_CONTAINS"
    case listContainsAny = "LIST_CONTAINS_ANY"
    case notListContainsAny = "NOT_LIST_CONTAINS_ANY"
    case listContainsAll = "LIST_CONTAINS_ALL"
    case notListContainsAll = "NOT_LIST_CONTAINS_ALL"
    case beginsWith = "BEGINS_WITH"
    case notBeginsWith = "NOT_BEGINS_WITH"
    case listMemberBeginsWith = "LIST_MEMBER_BEGINS_WITH"
    case notListMemberBeginsWith = "NOT_LIST_MEMBER_BEGINS_WITH"

    /// The comparators the engine cannot run, with the reason: CloudKit's predicates cannot
    /// negate an `AND` (decision 0005's subset, `validateForCloudKit`).
    static let unsupported: [WSComparator: String] = [
        .notListContainsAll:
            "it would be NOT (list CONTAINS a AND list CONTAINS b …), and CloudKit queries cannot negate an AND"
    ]

    /// The single-comparison format of this comparator over `%K` and `%@`, for the comparators
    /// that are one comparison (the others are built by ``WSQueryTranslator``).
    var format: String? {
        switch self {
        case .equals: return "%K == %@"
        case .notEquals: return "%K != %@"
        case .lessThan: return "%K < %@"
        case .lessThanOrEquals: return "%K <= %@"
        case .greaterThan: return "%K > %@"
        case .greaterThanOrEquals: return "%K >= %@"
        case .in: return "%K IN %@"
        case .notIn: return "NOT (%K IN %@)"
        case .listContains: return "%K CONTAINS %@"
        case .notListContains: return "NOT (%K CONTAINS %@)"
        case .listContainsAny: return "ANY %K IN %@"
        case .notListContainsAny: return "NOT (ANY %K IN %@)"
        case .beginsWith: return "%K BEGINSWITH %@"
        case .notBeginsWith: return "NOT (%K BEGINSWITH %@)"
        case .listMemberBeginsWith: return "ANY %K BEGINSWITH %@"
        case .notListMemberBeginsWith: return "NOT (ANY %K BEGINSWITH %@)"
        case .near, .containsAllTokens, .containsAnyTokens, .listContainsAll, .notListContainsAll: return nil
        }
    }

    /// Whether `fieldValue.value` must be a list.
    var takesList: Bool {
        switch self {
        case .in, .notIn, .listContainsAny, .notListContainsAny, .listContainsAll, .notListContainsAll: return true
        default: return false
        }
    }
}
