import Foundation

/// A value a predicate compares: an argument captured when the predicate was parsed, a literal
/// from the format string, or a field value of the record being evaluated.
///
/// The cases mirror the value types of a CloudKit record field. The Stratus module converts
/// `CKRecord.Reference`, `CKRecord.ID`, `CKRecord` and `CLLocation` to ``reference(recordName:zoneName:ownerName:)``
/// and ``location(latitude:longitude:)`` through ``PredicateValueConvertible``.
public enum PredicateValue: Sendable, Hashable {
    /// No value: `NIL`/`NULL` in a format string, `nil` or `NSNull` as an argument.
    case null
    /// A string.
    case string(String)
    /// An integer (every Swift integer type and integral `NSNumber`s).
    case int(Int64)
    /// A floating-point number.
    case double(Double)
    /// A Boolean. Compares numerically with numbers (`false` = 0, `true` = 1).
    case bool(Bool)
    /// A point in time.
    case date(Date)
    /// Raw bytes.
    case bytes(Data)
    /// A reference to a record, identified by its record ID.
    case reference(recordName: String, zoneName: String, ownerName: String)
    /// A geographic coordinate in degrees.
    case location(latitude: Double, longitude: Double)
    /// A list of values (a list field, an aggregate `{a, b}` or an array argument).
    case list([PredicateValue])
}

extension PredicateValue {
    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The elements of a ``list(_:)``; `nil` for every other case.
    public var listElements: [PredicateValue]? {
        if case .list(let elements) = self { return elements }
        return nil
    }

    /// A short name of the value's kind, used in error messages ("string", "date", …).
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .string: return "string"
        case .int: return "integer"
        case .double: return "double"
        case .bool: return "Boolean"
        case .date: return "date"
        case .bytes: return "bytes"
        case .reference: return "reference"
        case .location: return "location"
        case .list: return "list"
        }
    }
}

extension PredicateValue: CustomStringConvertible {
    /// The value written the way a predicate format string writes it: strings in double
    /// quotes, dates as `CAST(<seconds since 2001>, "NSDate")` (as Foundation prints them),
    /// lists as `{a, b}`. References, locations and bytes have no literal syntax and read
    /// `<reference …>`, `<location …>` and `<hex bytes>`.
    public var description: String {
        switch self {
        case .null:
            return "nil"
        case .string(let string):
            return PredicateValue.quoted(string)
        case .int(let value):
            return String(value)
        case .double(let value):
            return String(value)
        case .bool(let value):
            return value ? "YES" : "NO"
        case .date(let date):
            return "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
        case .bytes(let data):
            return "<"
                + data.map { byte in
                    let hex = String(byte, radix: 16)
                    return byte < 16 ? "0" + hex : hex
                }.joined() + ">"
        case .reference(let recordName, let zoneName, let ownerName):
            return
                "<reference \(PredicateValue.quoted(recordName)) zone \(PredicateValue.quoted(zoneName)) owner \(PredicateValue.quoted(ownerName))>"
        case .location(let latitude, let longitude):
            return "<location \(latitude), \(longitude)>"
        case .list(let elements):
            return "{" + elements.map(\.description).joined(separator: ", ") + "}"
        }
    }

    /// `string` in double quotes with `\` and `"` escaped.
    static func quoted(_ string: String) -> String {
        var result = "\""
        for character in string {
            switch character {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default: result.append(character)
            }
        }
        return result + "\""
    }
}
