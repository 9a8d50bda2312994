import Foundation
import StratusPredicate

/// A predicate in the form the engine stores (a query subscription's predicate): a format
/// string whose every constant is a `%@` placeholder, and the constants themselves.
///
/// On Linux, Foundation's `predicateFormat` reads `BLOCKPREDICATE` for format predicates, and
/// Stratus's `stratusPredicateFormat` writes references, locations and bytes in a form that
/// cannot be parsed again. Keeping the constants as typed values beside a `%@` template makes
/// `NSPredicate(format: template, argumentArray: values)` re-create an equal expression for
/// every value type.
struct StoredPredicate: Sendable, Equatable {
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
        for value in values { StoredPredicate.write(value, to: &w) }
    }

    init(reading r: inout ByteReader) throws {
        template = try r.readString()
        let count = try r.readVarint()
        guard count <= r.remaining else { throw EngineError.corruptValue }
        values = []
        for _ in 0..<count { values.append(try StoredPredicate.readValue(&r)) }
    }

    private static func write(_ value: PredicateValue, to w: inout ByteWriter) {
        switch value {
        case .null:
            w.write(UInt8(0))
        case .string(let string):
            w.write(UInt8(1))
            w.write(string)
        case .int(let int):
            w.write(UInt8(2))
            w.write(int)
        case .double(let double):
            w.write(UInt8(3))
            w.write(double)
        case .bool(let bool):
            w.write(UInt8(4))
            w.write(UInt8(bool ? 1 : 0))
        case .date(let date):
            w.write(UInt8(5))
            w.write(date.timeIntervalSinceReferenceDate)
        case .bytes(let data):
            w.write(UInt8(6))
            w.write(bytes: data)
        case .reference(let recordName, let zoneName, let ownerName):
            w.write(UInt8(7))
            w.write(recordName)
            w.write(zoneName)
            w.write(ownerName)
        case .location(let latitude, let longitude):
            w.write(UInt8(8))
            w.write(latitude)
            w.write(longitude)
        case .list(let elements):
            w.write(UInt8(9))
            w.writeVarint(elements.count)
            for element in elements { write(element, to: &w) }
        }
    }

    /// A value of the predicate; lists nested deeper than `FieldValueCodec.maximumListDepth`
    /// are damaged (a client's bytes must not recurse this reader off its stack).
    private static func readValue(_ r: inout ByteReader, depth: Int = 0) throws -> PredicateValue {
        switch try r.readByte() {
        case 0: return .null
        case 1: return .string(try r.readString())
        case 2: return .int(try r.readInt64())
        case 3: return .double(try r.readDouble())
        case 4: return .bool(try r.readByte() != 0)
        case 5: return .date(Date(timeIntervalSinceReferenceDate: try r.readDouble()))
        case 6: return .bytes(Data(try r.readBytes()))
        case 7:
            return .reference(
                recordName: try r.readString(), zoneName: try r.readString(), ownerName: try r.readString())
        case 8: return .location(latitude: try r.readDouble(), longitude: try r.readDouble())
        case 9:
            guard depth < FieldValueCodec.maximumListDepth else { throw EngineError.corruptValue }
            let count = try r.readVarint()
            guard count <= r.remaining else { throw EngineError.corruptValue }
            var elements: [PredicateValue] = []
            for _ in 0..<count { elements.append(try readValue(&r, depth: depth + 1)) }
            return .list(elements)
        default:
            throw EngineError.corruptValue
        }
    }
}
