import Foundation
import StratusPredicate
import Synchronization

/// A predicate in the form the engine stores (a query subscription's predicate): a format
/// string whose every constant is a `%@` placeholder, and the constants themselves.
///
/// On Linux, Foundation's `predicateFormat` reads `BLOCKPREDICATE` for format predicates, and
/// Stratus's `stratusPredicateFormat` writes references, locations and bytes in a form that
/// cannot be parsed again. Keeping the constants as typed values beside a `%@` template makes
/// `NSPredicate(format: template, argumentArray: values)` re-create an equal expression for
/// every value type.
struct StoredPredicate: Sendable, Hashable {
    /// The format string, with `%@` in place of every constant.
    var template: String
    /// The constants, in the order of their placeholders.
    var values: [PredicateValue]

    /// The stored form of `predicate`, which must be a CloudKit-valid predicate.
    ///
    /// - Throws: `invalidArguments` when the predicate cannot be parsed (a block predicate, a
    ///   malformed format string) or uses something CloudKit does not support; `internalError`
    ///   when its stored form would not read back as the same predicate.
    init(validating predicate: NSPredicate) throws(CKError) {
        let expression: QueryPredicate
        switch predicate.stratusPredicate {
        case .success(let parsed):
            expression = parsed
        case .failure(let error):
            throw CKError.make(.invalidArguments, "The subscription's predicate cannot be used: \(error.message)")
        }
        do throws(QueryPredicateError) {
            try expression.validateForCloudKit()
        } catch {
            throw CKError.make(
                error.code == .limitExceeded ? .limitExceeded : .invalidArguments,
                "The subscription's predicate is not supported by CloudKit: \(error.message)")
        }
        self.init(expression)
        guard makePredicate().stratusExpression == expression else {
            throw CKError.make(
                .internalError,
                "The subscription's predicate '\(predicate.stratusPredicateFormat)' cannot be stored so that it reads back unchanged"
            )
        }
    }

    /// The stored form of `predicate` without any check, for archiving: a predicate that cannot
    /// be parsed keeps its format string and reads back as a predicate that carries the same
    /// parse error.
    init(archiving predicate: NSPredicate) {
        if let expression = predicate.stratusExpression {
            self.init(expression)
        } else {
            self.init(template: predicate.stratusPredicateFormat, values: [])
        }
    }

    /// The stored form of `expression`.
    init(_ expression: QueryPredicate) {
        var values: [PredicateValue] = []
        template = StoredPredicate.template(expression, &values)
        self.values = values
    }

    init(template: String, values: [PredicateValue]) {
        self.template = template
        self.values = values
    }

    /// The predicate again: `NSPredicate(value:)` for `TRUEPREDICATE` / `FALSEPREDICATE` (as
    /// CloudKit's own round trip gives), `NSPredicate(format:argumentArray:)` otherwise.
    func makePredicate() -> NSPredicate {
        if values.isEmpty && template == "TRUEPREDICATE" { return NSPredicate(value: true) }
        if values.isEmpty && template == "FALSEPREDICATE" { return NSPredicate(value: false) }
        return NSPredicate(format: template, argumentArray: values)
    }

    /// The predicate's expression (`nil`: it does not parse, which a validated one always
    /// does), parsed once per process: parsing through `NSPredicate` costs tens of microseconds,
    /// and every commit judges its database's subscriptions again (decision 0014.8).
    var expression: QueryPredicate? {
        if let cached = Self.parsed.withLock({ $0.expressions[self] }) { return cached }
        let expression = makePredicate().stratusExpression
        let size = approximateSize
        // A large predicate (up to 64 KiB of constants) is parsed each time rather than kept.
        guard size <= ParsedPredicates.maximumBytes / 256 else { return expression }
        Self.parsed.withLock { $0.keep(expression, for: self, size: size) }
        return expression
    }

    /// About how many bytes this predicate and its parsed expression hold, together.
    private var approximateSize: Int {
        func size(_ value: PredicateValue) -> Int {
            switch value {
            case .string(let string): return 32 + string.utf8.count
            case .bytes(let data): return 32 + data.count
            case .list(let elements): return 32 + elements.reduce(0) { $0 + size($1) }
            default: return 32
            }
        }
        return 3 * (64 + template.utf8.count + values.reduce(0) { $0 + size($1) })
    }

    /// The expressions parsed so far.
    private static let parsed = Mutex(ParsedPredicates())

    // MARK: Template

    private static func template(_ expression: QueryPredicate, _ values: inout [PredicateValue]) -> String {
        switch expression {
        case .true:
            return "TRUEPREDICATE"
        case .false:
            return "FALSEPREDICATE"
        case .and(let subpredicates):
            return subpredicates.map { grouped($0, &values) }.joined(separator: " AND ")
        case .or(let subpredicates):
            return subpredicates.map { grouped($0, &values) }.joined(separator: " OR ")
        case .not(let subpredicate):
            return "NOT " + grouped(subpredicate, &values)
        case .comparison(let comparison):
            let prefix = comparison.quantifier == .direct ? "" : "\(comparison.quantifier) "
            let left = operand(comparison.left, &values)
            let right = operand(comparison.right, &values)
            return "\(prefix)\(left) \(comparison.operator)\(comparison.options) \(right)"
        }
    }

    private static func grouped(_ expression: QueryPredicate, _ values: inout [PredicateValue]) -> String {
        switch expression {
        case .and, .or: return "(" + template(expression, &values) + ")"
        default: return template(expression, &values)
        }
    }

    private static func operand(_ operand: PredicateOperand, _ values: inout [PredicateValue]) -> String {
        switch operand {
        case .constant(let value):
            values.append(value)
            return "%@"
        case .aggregate(let elements):
            return "{" + elements.map { self.operand($0, &values) }.joined(separator: ", ") + "}"
        case .distance(let location, let fixedLocation):
            let first = self.operand(location, &values)
            let second = self.operand(fixedLocation, &values)
            return "distanceToLocation:fromLocation:(\(first), \(second))"
        case .key, .evaluatedObject, .now:
            return operand.description
        }
    }

    // MARK: Encoding

    func write(to w: inout ByteWriter) {
        w.write(template)
        w.writeVarint(values.count)
        for value in values { PredicateValueCodec.write(value, to: &w) }
    }

    init(reading r: inout ByteReader) throws {
        template = try r.readString()
        let count = try r.readVarint()
        guard count <= r.remaining else { throw EngineError.corruptValue }
        values = []
        for _ in 0..<count { values.append(try PredicateValueCodec.read(from: &r)) }
    }
}

/// The parsed predicates a process keeps (``StoredPredicate/expression``): at most about
/// ``maximumBytes``, emptied when full.
private struct ParsedPredicates {
    static let maximumBytes = 16 << 20

    var expressions: [StoredPredicate: QueryPredicate?] = [:]
    private var bytes = 0

    mutating func keep(_ expression: QueryPredicate?, for predicate: StoredPredicate, size: Int) {
        if bytes + size > Self.maximumBytes {
            expressions.removeAll()
            bytes = 0
        }
        if expressions.updateValue(expression, forKey: predicate) == nil { bytes += size }
    }
}
