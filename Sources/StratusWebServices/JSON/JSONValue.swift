/// A JSON value that keeps numbers as they were written: a number without `.`, `e` or `E` is an
/// exact `integer` (all of `Int64`), any other number a `double`.
///
/// CloudKit Web Services infers a field's type from its JSON when `type` is omitted (`1` is
/// INT64, `1.0` DOUBLE: decision 0012.6), and INT64 values need all 64 bits, so the server
/// parses request bodies with its own parser (``parse(_:)-([UInt8])``) rather than
/// Foundation's `JSONDecoder`, which cannot tell `1` from `1.0`.
///
/// An object's keys are unique (the parser refuses duplicates); serialization writes them
/// sorted, so equal values serialize to equal bytes.
package enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without a fraction or exponent.
    case integer(Int64)
    /// A number written with a fraction or an exponent (always finite when parsed).
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])

    /// The member `key` of an object; `nil` for a missing key or a value that is not an object.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// What kind of value this is, as a noun phrase for error messages ("an integer").
    package var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer: return "an integer"
        case .double: return "a decimal number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The value for an error message: its kind, and its text when short ("an integer (12)").
    package var briefDescription: String {
        switch self {
        case .null, .array, .object:
            return kindDescription
        case .bool(let b):
            return "\(kindDescription) (\(b))"
        case .integer, .double:
            return "\(kindDescription) (\(serializedString()))"
        case .string(let s):
            let shown = s.count > 40 ? String(s.prefix(40)) + "…" : s
            return "\(kindDescription) (\(JSONValue.string(shown).serializedString()))"
        }
    }
}
