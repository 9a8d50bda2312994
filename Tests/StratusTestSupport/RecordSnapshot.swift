import Foundation
public import Stratus

/// What a test compares of a record: its change tag and its fields, each field encoded as a
/// string that is equal exactly when the values are equal.
///
/// Fields are read as the type their name stands for in the randomized system tests (see
/// ``fieldKinds``), so numbers of different types are never confused with each other.
/// `Sources/StratusTestProbe/CrashWriterCommand.swift` encodes the fields it reports with it.
public struct RecordSnapshot: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The record's change tag (`""` for none).
    public var changeTag: String
    /// Every field, by name, encoded by ``canonicalValue(_:_:)``.
    public var fields: [String: String]

    /// A snapshot of `record`.
    public init(_ record: CKRecord) {
        self.init(changeTag: record.recordChangeTag ?? "", fields: RecordSnapshot.canonicalFields(record))
    }

    /// A snapshot with the given tag and encoded fields.
    public init(changeTag: String, fields: [String: String]) {
        self.changeTag = changeTag
        self.fields = fields
    }

    /// A textual description, for logs.
    public var description: String {
        "tag \(changeTag), fields "
            + fields.keys.sorted().map { "\($0)=\(fields[$0]!.prefix(40))" }.joined(separator: " ")
    }

    /// How a field of the randomized system tests is typed.
    public enum FieldKind: Sendable {
        /// `Int64`.
        case int
        /// `String`.
        case string
        /// `Double`.
        case double
        /// `Data`.
        case bytes
        /// `[String]`.
        case strings
    }

    /// The fields the randomized system tests write, by name, with their types.
    public static let fieldKinds: [String: FieldKind] = [
        "batch": .int, "title": .string, "count": .int, "score": .double, "data": .bytes, "tags": .strings,
    ]

    /// Field `key` of `record` as a string that is equal for equal values: `i:` integers,
    /// `s:` strings, `d:` the bit pattern of doubles, `b:` base64 bytes, `l:` a JSON array of
    /// strings, and `?:` for a field not in ``fieldKinds`` or not of its type.
    public static func canonicalValue(_ record: CKRecord, _ key: String) -> String {
        switch fieldKinds[key] {
        case .int: if let value: Int64 = record[key] { return "i:\(value)" }
        case .string: if let value: String = record[key] { return "s:\(value)" }
        case .double: if let value: Double = record[key] { return "d:\(value.bitPattern)" }
        case .bytes: if let value: Data = record[key] { return "b:\(value.base64EncodedString())" }
        case .strings:
            if let value: [String] = record[key], let json = try? JSONEncoder().encode(value) {
                return "l:" + String(decoding: json, as: UTF8.self)
            }
        case nil: break
        }
        return "?:\(String(describing: record[key]))"
    }

    /// Every field of `record`, encoded by ``canonicalValue(_:_:)``.
    public static func canonicalFields(_ record: CKRecord) -> [String: String] {
        Dictionary(uniqueKeysWithValues: record.allKeys().map { ($0, canonicalValue(record, $0)) })
    }

    /// The differences between two zone states (record name → snapshot), one line each, at
    /// most `limit` lines plus a count of the rest; empty when they are equal.
    public static func differences(
        _ actual: [String: RecordSnapshot], expected: [String: RecordSnapshot], limit: Int = 8
    ) -> [String] {
        var lines: [String] = []
        for name in Set(actual.keys).union(expected.keys).sorted() where actual[name] != expected[name] {
            switch (actual[name], expected[name]) {
            case (nil, let wanted?): lines.append("\(name): missing; expected \(wanted)")
            case (let found?, nil): lines.append("\(name): unexpected \(found)")
            case (let found?, let wanted?): lines.append("\(name): \(found); expected \(wanted)")
            case (nil, nil): break
            }
        }
        guard lines.count > limit else { return lines }
        return Array(lines.prefix(limit)) + ["… and \(lines.count - limit) more"]
    }
}
