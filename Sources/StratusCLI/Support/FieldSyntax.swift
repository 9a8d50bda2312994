import Foundation
import Stratus

/// Typed field assignments on the command line: `name[:type]=value`.
///
/// ```
/// title=Hello                      a string (the type is string when omitted)
/// count:int=3                      an Int; also int8…int64, uint…uint64
/// ratio:double=0.5                 a Double; float for a Float
/// done:bool=true                   true/false, yes/no, 1/0
/// when:date=2026-01-01T00:00:00Z   ISO 8601; 2026-01-01 is midnight UTC
/// blob:bytes=aGVsbG8=              base64
/// owner:reference=note-1           a reference to a record of the same zone (action none)
/// owner:reference-delete-self=n-1  the same, deleted with its target (action deleteSelf)
/// place:location=48.85,2.35        latitude,longitude
/// photo:asset=./photo.jpg          a file, stored as an asset
/// tags:string-list=a,b             a list: TYPE-list, items separated by commas (\, for a comma)
/// ```
enum FieldSyntax {
    /// Parses `name[:type]=value` into the field's name and value, for a record in `zoneID`.
    static func parse(_ text: String, zoneID: CKRecordZone.ID) throws -> (name: String, value: any CKRecordValue) {
        guard let equals = text.firstIndex(of: "=") else {
            throw CLIError(
                "field '\(text)' has no value; write name=value or name:type=value (such as count:int=3)",
                exitCode: CLIError.usage)
        }
        let target = text[..<equals]
        let valueText = String(text[text.index(after: equals)...])
        var name = String(target)
        var type = "string"
        if let colon = target.firstIndex(of: ":") {
            name = String(target[..<colon])
            type = String(target[target.index(after: colon)...]).lowercased()
        }
        guard !name.isEmpty else {
            throw CLIError("field '\(text)' has no name", exitCode: CLIError.usage)
        }
        if type.hasSuffix("-list") {
            let itemType = String(type.dropLast("-list".count))
            guard listableTypes.contains(itemType) else {
                throw CLIError(
                    "unknown list type '\(type)' for field '\(name)'; lists: "
                        + listableTypes.map { $0 + "-list" }.joined(separator: ", ")
                        + " (other lists: use --fields-json)", exitCode: CLIError.usage)
            }
            let items = splitList(valueText)
            return (name, try makeList(items.map { try scalar($0, type: itemType, field: name, zoneID: zoneID) }))
        }
        return (name, try scalar(valueText, type: type, field: name, zoneID: zoneID))
    }

    /// The scalar types, in help order.
    static let scalarTypes = [
        "string", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "double",
        "float", "bool", "date", "bytes", "reference", "reference-delete-self", "location", "asset",
    ]
    /// The types that have a `-list` form.
    static let listableTypes = scalarTypes.filter { $0 != "location" && $0 != "asset" }

    private static func scalar(
        _ text: String, type: String, field: String, zoneID: CKRecordZone.ID
    ) throws -> any CKRecordValue {
        func bad(_ expected: String) -> CLIError {
            CLIError("invalid \(type) '\(text)' for field '\(field)': expected \(expected)", exitCode: CLIError.usage)
        }
        func integer<T: FixedWidthInteger & CKRecordValue>(_: T.Type) throws -> any CKRecordValue {
            guard let value = T(text) else { throw bad("a whole number from \(T.min) to \(T.max)") }
            return value
        }
        switch type {
        case "string": return text
        case "int": return try integer(Int.self)
        case "int8": return try integer(Int8.self)
        case "int16": return try integer(Int16.self)
        case "int32": return try integer(Int32.self)
        case "int64": return try integer(Int64.self)
        case "uint": return try integer(UInt.self)
        case "uint8": return try integer(UInt8.self)
        case "uint16": return try integer(UInt16.self)
        case "uint32": return try integer(UInt32.self)
        case "uint64": return try integer(UInt64.self)
        case "double":
            guard let value = Double(text), value.isFinite else { throw bad("a number such as 0.5") }
            return value
        case "float":
            guard let value = Float(text), value.isFinite else { throw bad("a number such as 0.5") }
            return value
        case "bool":
            switch text.lowercased() {
            case "true", "yes", "1": return true
            case "false", "no", "0": return false
            default: throw bad("true or false")
            }
        case "date":
            guard let date = DateText.parse(text) else { throw bad("an ISO 8601 date such as 2026-01-01T12:00:00Z") }
            return date
        case "bytes":
            guard let data = Data(base64Encoded: text) else { throw bad("base64") }
            return data
        case "reference", "reference-delete-self":
            guard !text.isEmpty else { throw bad("a record name") }
            return CKRecord.Reference(
                recordID: CKRecord.ID(recordName: text, zoneID: zoneID),
                action: type == "reference" ? .none : .deleteSelf)
        case "location":
            let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2, let latitude = parts[0], let longitude = parts[1],
                (-90...90).contains(latitude), (-180...180).contains(longitude)
            else { throw bad("latitude,longitude such as 48.85,2.35") }
            return CLLocation(latitude: latitude, longitude: longitude)
        case "asset":
            guard FileManager.default.fileExists(atPath: text) else { throw bad("an existing file") }
            return CKAsset(fileURL: URL(fileURLWithPath: text))
        default:
            throw CLIError(
                "unknown type '\(type)' for field '\(field)'; types: \(scalarTypes.joined(separator: ", ")), and TYPE-list",
                exitCode: CLIError.usage)
        }
    }

    /// Splits `a,b\,c` into `["a", "b,c"]`; an empty text is an empty list.
    static func splitList(_ text: String) -> [String] {
        guard !text.isEmpty else { return [] }
        var items: [String] = []
        var current = ""
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," {
                items.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if escaped { current.append("\\") }
        items.append(current)
        return items
    }

    /// The typed Swift array of `items` (all of one type).
    private static func makeList(_ items: [any CKRecordValue]) throws -> any CKRecordValue {
        if let v = items as? [String] { return v }
        if let v = items as? [Int] { return v }
        if let v = items as? [Int64] { return v }
        if let v = items as? [Double] { return v }
        if let v = items as? [Bool] { return v }
        if let v = items as? [Date] { return v }
        if let v = items as? [Data] { return v }
        if let v = items as? [CKRecord.Reference] { return v }
        return items.map { $0 as Any } as NSArray
    }
}

/// ISO 8601 dates for field values.
enum DateText {
    /// `text` as a date: `2026-01-01T12:00:00Z`, with fractional seconds or an offset, or
    /// `2026-01-01` (midnight UTC).
    static func parse(_ text: String) -> Date? {
        let full = ISO8601DateFormatter()
        if let date = full.date(from: text) { return date }
        full.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = full.date(from: text) { return date }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        return day.date(from: text)
    }

    /// `date` in ISO 8601, UTC, with milliseconds only when it has them.
    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        let seconds = date.timeIntervalSince1970
        if seconds != seconds.rounded() {
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        }
        return formatter.string(from: date)
    }
}
