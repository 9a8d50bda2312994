import Foundation
import Stratus
import StratusWebServices

/// `--fields-json`: fields as a JSON object.
///
/// Plain JSON values map to the obvious types — a string to `String`, a whole number to `Int`,
/// another number to `Double`, `true`/`false` to `Bool`, an array to a list, `null` to "remove
/// the field" — and any value may instead be given exactly, in the typed form `--json` and
/// `export` print: `{"type": "TIMESTAMP", "value": 1767225600}`, `{"type": "INT64", "kind": 4,
/// "value": 3}`, `{"type": "REFERENCE", "value": ["note-1", "Notes", "__defaultOwner__", "0"]}`.
enum FieldsJSON {
    /// The fields of `json`: a value to set, or `nil` to remove the field.
    static func parse(_ json: String) throws -> [(name: String, value: (any CKRecordValue)?)] {
        // The Web Services parser: `1.0` stays a Double (Foundation's decoder reads it as 1).
        let parsed: JSONValue
        do {
            parsed = try JSONValue.parse(json)
        } catch {
            throw CLIError("--fields-json is not a JSON object of fields: \(error)", exitCode: CLIError.usage)
        }
        guard case .object(let object) = parsed else {
            throw CLIError(
                "--fields-json is not a JSON object of fields: it is \(parsed.kindDescription)",
                exitCode: CLIError.usage)
        }
        return try object.keys.sorted().map { name in (name, try value(object[name]!, field: name)) }
    }

    private static func value(_ json: JSONValue, field: String) throws -> (any CKRecordValue)? {
        switch json {
        case .null: return nil
        case .bool(let v): return v
        case .integer(let v): return Int(exactly: v) ?? Int(v)
        case .double(let v): return v
        case .string(let v): return v
        case .array(let items):
            let values = try items.map { item -> any CKRecordValue in
                guard let value = try value(item, field: field) else {
                    throw CLIError("field '\(field)' has a null in its list", exitCode: CLIError.usage)
                }
                return value
            }
            if let v = values as? [String] { return v }
            if let v = values as? [Int] { return v }
            if let v = values as? [Double] { return v }
            if let v = values as? [Bool] { return v }
            return values.map { $0 as Any } as NSArray
        case .object:
            return try typed(json, field: field)
        }
    }

    /// A `{"type": …, "value": …}` value, read by `CKRecord`'s own decoder.
    private static func typed(_ json: JSONValue, field: String) throws -> any CKRecordValue {
        let wrapper = JSONValue.object([
            "recordName": .string("_"), "zoneName": .string("_"), "ownerName": .string("_"),
            "recordType": .string("_"), "fields": .object(["v": json]),
        ])
        do {
            let record = try JSONDecoder().decode(CKRecord.self, from: JSONEncoder().encode(wrapper))
            guard let value = record["v"] else { throw CLIError("no value") }
            return value
        } catch {
            throw CLIError(
                "field '\(field)' is not a typed value such as {\"type\": \"TIMESTAMP\", \"value\": 1767225600}: \(Self.reason(error))",
                exitCode: CLIError.usage)
        }
    }

    /// A short reason for a decoding error.
    static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return context.debugDescription
        case DecodingError.keyNotFound(let key, _): return "missing key '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context): return context.debugDescription
        case DecodingError.valueNotFound(_, let context): return context.debugDescription
        case let error as CLIError: return error.message
        default: return String(describing: error)
        }
    }
}
