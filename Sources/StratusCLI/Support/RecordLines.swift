import Foundation
import Stratus

/// Reading export files: JSON lines of `CKRecord`'s `Codable` form, moved into another zone.
enum RecordLines {
    /// The system fields the server sets on save; an import does not carry them over.
    private static let serverFields = ["recordChangeTag", "created", "modified", "createdBy", "modifiedBy"]

    /// The records of `data` (one JSON object a line; blank lines are skipped), moved to
    /// `zoneID`: references to records of their original zone now point into `zoneID`.
    ///
    /// - Throws: ``CLIError`` naming the first bad line (exit status 65).
    static func decode(_ data: Data, into zoneID: CKRecordZone.ID) throws -> [CKRecord] {
        var records: [CKRecord] = []
        var names = Set<String>()
        let text = String(decoding: data, as: UTF8.self)
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            let record: CKRecord
            do {
                record = try decodeLine(trimmed, into: zoneID)
            } catch {
                throw CLIError(
                    "line \(index + 1) is not a record as `stratus export` writes it: \(FieldsJSON.reason(error))",
                    exitCode: CLIError.dataError)
            }
            guard names.insert(record.recordID.recordName).inserted else {
                throw CLIError(
                    "line \(index + 1): record '\(record.recordID.recordName)' appears twice",
                    exitCode: CLIError.dataError)
            }
            records.append(record)
        }
        return records
    }

    private static func decodeLine(_ line: String, into zoneID: CKRecordZone.ID) throws -> CKRecord {
        guard case .object(var object) = try JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)) else {
            throw CLIError("not a JSON object")
        }
        guard case .string(let sourceZone) = object["zoneName"] ?? .null else {
            throw CLIError("missing key 'zoneName'")
        }
        for key in serverFields { object[key] = nil }
        object["zoneName"] = .string(zoneID.zoneName)
        object["ownerName"] = .string(zoneID.ownerName)
        if let parent = object["parent"] {
            object["parent"] = moveReferences(parent, from: sourceZone, to: zoneID)
        }
        if case .object(let fields) = object["fields"] ?? .null {
            object["fields"] = .object(fields.mapValues { moveReferences($0, from: sourceZone, to: zoneID) })
        }
        return try JSONDecoder().decode(CKRecord.self, from: JSONEncoder().encode(JSONValue.object(object)))
    }

    /// A typed value whose references into `sourceZone` now point into `zoneID`.
    private static func moveReferences(_ value: JSONValue, from sourceZone: String, to zoneID: CKRecordZone.ID)
        -> JSONValue
    {
        guard case .object(var typed) = value, case .string(let type) = typed["type"] ?? .null else { return value }
        switch type {
        case "REFERENCE":
            if case .array(var parts) = typed["value"] ?? .null, parts.count == 4,
                case .string(let zoneName) = parts[1], zoneName == sourceZone
            {
                parts[1] = .string(zoneID.zoneName)
                parts[2] = .string(zoneID.ownerName)
                typed["value"] = .array(parts)
            }
        case "LIST":
            if case .array(let items) = typed["value"] ?? .null {
                typed["value"] = .array(items.map { moveReferences($0, from: sourceZone, to: zoneID) })
            }
        default:
            break
        }
        return .object(typed)
    }

    /// `records` reordered so that a record's parent, when it is among them, comes first;
    /// otherwise in the original order.
    static func parentsFirst(_ records: [CKRecord]) -> [CKRecord] {
        let byName = Dictionary(uniqueKeysWithValues: records.map { ($0.recordID.recordName, $0) })
        var placed = Set<String>()
        var ordered: [CKRecord] = []
        func place(_ record: CKRecord, depth: Int) {
            let name = record.recordID.recordName
            guard !placed.contains(name) else { return }
            if depth < records.count, let parentName = record.parent?.recordID.recordName,
                let parent = byName[parentName], parentName != name
            {
                place(parent, depth: depth + 1)
            }
            if placed.insert(name).inserted { ordered.append(record) }
        }
        for record in records { place(record, depth: 0) }
        return ordered
    }
}
