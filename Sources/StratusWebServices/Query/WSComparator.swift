/// The comparators of a filter dictionary (Apple's *Filter Dictionary*, CloudKit JS's
/// `QueryFilterComparator`), each with the predicate the engine evaluates for it.
package enum WSComparator: String, CaseIterable, Sendable {
    /// `field == value`.
    case equals = "EQUALS"
    /// `field != value`.
    case notEquals = "NOT_EQUALS"
    /// `field < value`.
    case lessThan = "LESS_THAN"
    /// `field <= value`.
    case lessThanOrEquals = "LESS_THAN_OR_EQUALS"
    /// `field > value`.
    case greaterThan = "GREATER_THAN"
    /// `field >= value`.
    case greaterThanOrEquals = "GREATER_THAN_OR_EQUALS"
    /// A LOCATION field within `distance` metres of the value.
    case near = "NEAR"
    /// Every word of the value is a token of the record.
    case containsAllTokens = "CONTAINS_ALL_TOKENS"
    /// Some word of the value is a token of the record.
    case containsAnyTokens = "CONTAINS_ANY_TOKENS"
    /// `field IN list`.
    case `in` = "IN"
    /// `NOT (field IN list)`.
    case notIn = "NOT_IN"
    /// A list field holds the value.
    case listContains = "LIST_CONTAINS"
    /// A list field does not hold the value.
    case notListContains = "NOT_LIST_CONTAINS"
    /// A list field holds some item of the list value.
    case listContainsAny = "LIST_CONTAINS_ANY"
    /// A list field holds no item of the list value.
    case notListContainsAny = "NOT_LIST_CONTAINS_ANY"
    /// A list field holds every item of the list value.
    case listContainsAll = "LIST_CONTAINS_ALL"
    /// Not every item (refused: ``unsupported``).
    case notListContainsAll = "NOT_LIST_CONTAINS_ALL"
    /// A string field begins with the value.
    case beginsWith = "BEGINS_WITH"
    /// A string field does not begin with the value.
    case notBeginsWith = "NOT_BEGINS_WITH"
    /// Some item of a string list begins with the value.
    case listMemberBeginsWith = "LIST_MEMBER_BEGINS_WITH"
    /// No item of a string list begins with the value.
    case notListMemberBeginsWith = "NOT_LIST_MEMBER_BEGINS_WITH"

    /// The comparators the engine cannot run, with the reason: CloudKit's predicates cannot
    /// negate an `AND` (decision 0005's subset, `validateForCloudKit`).
    package static let unsupported: [WSComparator: String] = [
        .notListContainsAll:
            "it would be NOT (list CONTAINS a AND list CONTAINS b …), and CloudKit queries cannot negate an AND"
    ]

    /// The single-comparison format of this comparator over `%K` and `%@`, for the comparators
    /// that are one comparison (the others are built by ``WSQueryTranslator``).
    package var format: String? {
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
    package var takesList: Bool {
        switch self {
        case .in, .notIn, .listContainsAny, .notListContainsAny, .listContainsAll, .notListContainsAll: return true
        default: return false
        }
    }
}
