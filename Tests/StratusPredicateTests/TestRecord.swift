import Foundation
import StratusPredicate
import Testing

/// A record for evaluation tests: named field values; searchable text is every string field
/// and string list element unless given explicitly.
struct TestRecord: PredicateSubject {
    var fields: [String: PredicateValue]
    var explicitSearchableText: [String]?

    init(_ fields: [String: PredicateValue], searchableText: [String]? = nil) {
        self.fields = fields
        explicitSearchableText = searchableText
    }

    func predicateValue(forKey key: String) -> PredicateValue? {
        fields[key]
    }

    var searchableText: [String] {
        if let explicitSearchableText { return explicitSearchableText }
        var texts: [String] = []
        for value in fields.values {
            switch value {
            case .string(let string):
                texts.append(string)
            case .list(let elements):
                for case .string(let string) in elements {
                    texts.append(string)
                }
            default:
                break
            }
        }
        return texts
    }
}

/// Parses `format` with `arguments`.
func parse(_ format: String, _ arguments: Any...) throws(QueryPredicateError) -> QueryPredicate {
    try QueryPredicate.parse(format: format, arguments: arguments)
}

/// The error parsing `format` throws, or `nil` when it parses.
func parseError(_ format: String, _ arguments: Any...) -> QueryPredicateError? {
    do {
        _ = try QueryPredicate.parse(format: format, arguments: arguments)
        return nil
    } catch {
        return error
    }
}

/// The error validating `format` throws, or `nil` when it is valid (parse errors fail the test).
func validationError(_ format: String, _ arguments: Any..., sourceLocation: SourceLocation = #_sourceLocation)
    -> QueryPredicateError?
{
    let expression: QueryPredicate
    do {
        expression = try QueryPredicate.parse(format: format, arguments: arguments)
    } catch {
        Issue.record("'\(format)' did not parse: \(error)", sourceLocation: sourceLocation)
        return nil
    }
    do {
        try expression.validateForCloudKit()
        return nil
    } catch {
        return error
    }
}

/// Whether `format` (which must parse) matches `record`.
func matches(
    _ format: String, _ arguments: Any..., in record: TestRecord, sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    do {
        return try QueryPredicate.parse(format: format, arguments: arguments).evaluate(record)
    } catch {
        Issue.record("'\(format)' did not parse: \(error)", sourceLocation: sourceLocation)
        return false
    }
}

/// Shorthands for AST expectations.
func key(_ name: String) -> PredicateOperand { .key(name) }
func value(_ value: PredicateValue) -> PredicateOperand { .constant(value) }
func comparison(
    _ left: PredicateOperand,
    _ op: PredicateOperator,
    _ right: PredicateOperand,
    _ quantifier: PredicateQuantifier = .direct,
    _ options: PredicateStringOptions = []
) -> QueryPredicate {
    .comparison(PredicateComparison(left, op, right, quantifier: quantifier, options: options))
}
