extension QueryPredicate {
    /// Checks that CloudKit can run this predicate as a query, throwing the first violation
    /// found (depth first, left to right).
    ///
    /// Rejected, each with a message naming the construct: `OR`; `ALL`; `ENDSWITH`, `LIKE`,
    /// `MATCHES`; key paths into related records (`owner.name`); `NOT` around `AND`, around
    /// `self CONTAINS`, around `distanceToLocation:fromLocation:` and around `BETWEEN`;
    /// comparisons of two keys or of two constants; `self` anywhere but `self CONTAINS
    /// <string>`; `distanceToLocation:fromLocation:` other than `(field, location) < km` or
    /// `<= km`; `BETWEEN` without a two-element aggregate; `BEGINSWITH` without a string;
    /// `CONTAINS` whose container is a constant string; `IN` with a constant scalar on the
    /// right; aggregates containing keys.
    ///
    /// Whether `field CONTAINS value` is list membership or an unsupported substring test
    /// depends on the field's type, so it is decided at evaluation (see
    /// ``evaluateStrictly(_:now:)``).
    ///
    /// Also refused, with code ``QueryPredicateError/Code/limitExceeded``: a predicate whose
    /// strings and bytes hold more than ``maximumConstantBytes`` together, or holding more
    /// than ``maximumValues`` values, counting each constant of a list or aggregate
    /// (`IN`, `CONTAINS` of a list), each word of a tokenized search and one for every other
    /// comparison. CloudKit refuses such filters too ("Query filter exceeds the limit of
    /// values: 250"); every value is a group of an index to read and a test on every record.
    ///
    /// - Throws: ``QueryPredicateError`` with code ``QueryPredicateError/Code/unsupported`` or
    ///   ``QueryPredicateError/Code/limitExceeded``.
    public func validateForCloudKit() throws(QueryPredicateError) {
        try PredicateValidator.validate(self, underNot: false)
        let values = PredicateValidator.valueCount(self)
        if values > Self.maximumValues {
            throw QueryPredicateError(
                .limitExceeded,
                "Query filter exceeds the limit of values: \(Self.maximumValues) (this one holds \(values), counting each value of a list, each word of a token search and each other comparison)"
            )
        }
        let bytes = PredicateValidator.constantBytes(self)
        if bytes > Self.maximumConstantBytes {
            throw QueryPredicateError(
                .limitExceeded,
                "Query filter's strings and bytes hold \(bytes) bytes together; the limit is \(Self.maximumConstantBytes)"
            )
        }
    }

    /// The most values a CloudKit query's predicate may hold (see ``validateForCloudKit()``).
    public static let maximumValues = 250

    /// The most bytes a predicate's string and bytes constants (a token search's text
    /// included) may hold together: each is compared with, or folded against, every record
    /// the query reads.
    public static let maximumConstantBytes = 65_536
}

/// The rules of ``QueryPredicate/validateForCloudKit()``.
enum PredicateValidator {
    private static func unsupported(_ message: String) -> QueryPredicateError {
        QueryPredicateError(.unsupported, message)
    }

    static func validate(_ expression: QueryPredicate, underNot: Bool) throws(QueryPredicateError) {
        switch expression {
        case .true, .false:
            return
        case .and(let subpredicates):
            if underNot {
                throw unsupported(
                    "NOT cannot negate an AND compound predicate in a CloudKit query: NOT (\(expression))")
            }
            for subpredicate in subpredicates {
                try validate(subpredicate, underNot: false)
            }
        case .or:
            throw unsupported(
                "OR is not supported in CloudKit queries: \(expression). Run one query per alternative, or use IN {…} for alternatives of one field"
            )
        case .not(let subpredicate):
            try validate(subpredicate, underNot: true)
        case .comparison(let comparison):
            try validate(comparison, underNot: underNot)
        }
    }

    private static func validate(_ comparison: PredicateComparison, underNot: Bool) throws(QueryPredicateError) {
        let text = comparison.description
        if comparison.quantifier == .all {
            throw unsupported("The ALL aggregate operator is not supported in CloudKit queries: \(text)")
        }
        switch comparison.operator {
        case .endsWith, .like, .matches:
            throw unsupported(
                "The \(comparison.operator) operator is not supported in CloudKit queries (string comparisons allow only BEGINSWITH): \(text)"
            )
        default:
            break
        }
        for operand in [comparison.left, comparison.right] {
            try validateKeys(in: operand, comparison: text)
        }
        if underNot {
            if comparison.isTokenSearch {
                throw unsupported(
                    "NOT cannot be used with a tokenized search (self CONTAINS …) in a CloudKit query: NOT \(text)")
            }
            if comparison.usesDistance {
                throw unsupported(
                    "NOT cannot be used with distanceToLocation:fromLocation: in a CloudKit query: NOT \(text)")
            }
            if comparison.operator == .between {
                throw unsupported("NOT cannot be used with BETWEEN in a CloudKit query: NOT \(text)")
            }
        }
        if comparison.left == .evaluatedObject || comparison.right == .evaluatedObject {
            try validateTokenSearch(comparison, text: text)
            return
        }
        if comparison.usesDistance {
            try validateDistance(comparison, text: text)
            return
        }
        let leftIsRecord = comparison.left.dependsOnRecord
        let rightIsRecord = comparison.right.dependsOnRecord
        if leftIsRecord && rightIsRecord {
            throw unsupported(
                "Comparing two fields is not supported in CloudKit queries; compare a field with a value: \(text)")
        }
        if !leftIsRecord && !rightIsRecord {
            throw unsupported(
                "Comparing two constants is not supported in CloudKit queries; compare a field with a value: \(text)")
        }
        switch comparison.operator {
        case .between:
            var boundCount: Int?
            switch comparison.right {
            case .constant(.list(let bounds)): boundCount = bounds.count
            case .aggregate(let bounds): boundCount = bounds.count
            default: boundCount = nil
            }
            guard leftIsRecord, boundCount == 2 else {
                throw unsupported(
                    "BETWEEN needs a field on the left and an aggregate of two values {low, high} on the right: \(text)"
                )
            }
        case .beginsWith:
            guard leftIsRecord, case .constant(.string) = comparison.right else {
                throw unsupported("BEGINSWITH needs a string field on the left and a string on the right: \(text)")
            }
        case .contains:
            if leftIsRecord == false, case .constant(let container) = comparison.left, container.listElements == nil {
                throw unsupported(
                    "CONTAINS on a string is not supported in CloudKit queries; CONTAINS tests list membership (use self CONTAINS for full-text search, BEGINSWITH for prefixes): \(text)"
                )
            }
        case .in:
            if leftIsRecord, case .constant(let container) = comparison.right, container.listElements == nil {
                throw unsupported("IN needs a list on the right, such as {'a', 'b'} or an array argument: \(text)")
            }
        default:
            break
        }
    }

    /// The values `expression` holds, as ``QueryPredicate/validateForCloudKit()`` counts them.
    static func valueCount(_ expression: QueryPredicate) -> Int {
        switch expression {
        case .true, .false: return 0
        case .and(let subpredicates), .or(let subpredicates): return subpredicates.reduce(0) { $0 + valueCount($1) }
        case .not(let subpredicate): return valueCount(subpredicate)
        case .comparison(let comparison):
            if comparison.isTokenSearch, case .constant(.string(let words)) = comparison.right {
                return max(1, PredicateTokenizer.tokenize(words).count)
            }
            return max(1, valueCount(comparison.left), valueCount(comparison.right))
        }
    }

    /// The bytes of the string and bytes constants of `expression`.
    static func constantBytes(_ expression: QueryPredicate) -> Int {
        switch expression {
        case .true, .false: return 0
        case .and(let subpredicates), .or(let subpredicates):
            return subpredicates.reduce(0) { $0 + constantBytes($1) }
        case .not(let subpredicate): return constantBytes(subpredicate)
        case .comparison(let comparison): return constantBytes(comparison.left) + constantBytes(comparison.right)
        }
    }

    private static func constantBytes(_ operand: PredicateOperand) -> Int {
        switch operand {
        case .constant(let value): return constantBytes(value)
        case .aggregate(let elements): return elements.reduce(0) { $0 + constantBytes($1) }
        case .distance(let a, let b): return constantBytes(a) + constantBytes(b)
        case .key, .evaluatedObject, .now: return 0
        }
    }

    private static func constantBytes(_ value: PredicateValue) -> Int {
        switch value {
        case .string(let string): return string.utf8.count
        case .bytes(let data): return data.count
        case .reference(let recordName, let zoneName, let ownerName):
            return recordName.utf8.count + zoneName.utf8.count + ownerName.utf8.count
        case .list(let elements): return elements.reduce(0) { $0 + constantBytes($1) }
        default: return 0
        }
    }

    /// The values of a list or an aggregate; 1 for any other operand.
    private static func valueCount(_ operand: PredicateOperand) -> Int {
        switch operand {
        case .aggregate(let elements): return elements.count
        case .constant(.list(let elements)): return elements.count
        default: return 1
        }
    }

    private static func validateKeys(in operand: PredicateOperand, comparison text: String) throws(QueryPredicateError)
    {
        switch operand {
        case .key(let key):
            if key.contains(".") {
                throw unsupported(
                    "Key paths into related records ('\(key)') are not supported in CloudKit queries; use a field of the queried record: \(text)"
                )
            }
        case .aggregate(let elements):
            for element in elements {
                if element.dependsOnRecord {
                    throw unsupported("Aggregates may contain only values, not keys: \(text)")
                }
                try validateKeys(in: element, comparison: text)
            }
        case .distance(let location, let fixedLocation):
            try validateKeys(in: location, comparison: text)
            try validateKeys(in: fixedLocation, comparison: text)
        case .evaluatedObject, .constant, .now:
            return
        }
    }

    private static func validateTokenSearch(_ comparison: PredicateComparison, text: String) throws(QueryPredicateError)
    {
        guard comparison.left == .evaluatedObject, comparison.operator == .contains,
            comparison.quantifier == .direct
        else {
            throw unsupported("SELF is only supported as a tokenized search, self CONTAINS 'words': \(text)")
        }
        guard case .constant(.string) = comparison.right else {
            throw unsupported("A tokenized search (self CONTAINS …) needs a string of words on the right: \(text)")
        }
    }

    private static func validateDistance(_ comparison: PredicateComparison, text: String) throws(QueryPredicateError) {
        let requirement =
            "distanceToLocation:fromLocation:(locationField, location) must be compared with < or <= to a radius in kilometres (CloudKit supports only inside-a-circle searches)"
        var function = comparison.left
        var bound = comparison.right
        var comparisonOperator = comparison.operator
        if case .distance = comparison.right {
            guard let mirrored = comparison.operator.mirrored else {
                throw unsupported("\(requirement): \(text)")
            }
            function = comparison.right
            bound = comparison.left
            comparisonOperator = mirrored
        }
        guard comparison.quantifier == .direct,
            case .distance(let location, let fixedLocation) = function,
            comparisonOperator == .lessThan || comparisonOperator == .lessThanOrEqualTo
        else {
            throw unsupported("\(requirement): \(text)")
        }
        switch bound {
        case .constant(.int), .constant(.double):
            break
        default:
            throw unsupported("\(requirement); the radius must be a number: \(text)")
        }
        guard case .key = location else {
            throw unsupported(
                "The first argument of distanceToLocation:fromLocation: must be a location field: \(text)")
        }
        switch fixedLocation {
        case .constant(.location):
            break
        default:
            throw unsupported(
                "The second argument of distanceToLocation:fromLocation: must be a location value (a CLLocation argument): \(text)"
            )
        }
    }
}
