/// One record value on its way out: numbers kept apart so a list of integers and doubles
/// becomes a DOUBLE_LIST, and so `numbersAsStrings` applies to them only.
package enum WSOutputValue {
    case integer(Int64)
    case double(Double)
    case other(WSFieldType, JSONValue)

    package var type: WSFieldType {
        switch self {
        case .integer: return .int64
        case .double: return .double
        case .other(let type, _): return type
        }
    }

    /// The JSON value: numbers as strings when `numbersAsStrings`, non-finite doubles always
    /// as `"NaN"`, `"Infinity"`, `"-Infinity"` (JSON has no such numbers).
    package func json(numbersAsStrings: Bool) -> JSONValue {
        switch self {
        case .integer(let i):
            return numbersAsStrings ? .string(String(i)) : .integer(i)
        case .double(let d):
            return WSOutputValue.json(d, numbersAsStrings: numbersAsStrings)
        case .other(_, let json):
            return json
        }
    }

    package static func json(_ d: Double, numbersAsStrings: Bool) -> JSONValue {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        return numbersAsStrings ? .string(d.description) : .double(d)
    }

    /// As a double (a DOUBLE_LIST item).
    var asDouble: WSOutputValue {
        if case .integer(let i) = self { return .double(Double(i)) }
        return self
    }
}
