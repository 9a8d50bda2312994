import Foundation
import Stratus

/// One line of an export, decoded just far enough to move the record into another zone:
/// `CKRecord`'s `Codable` form with typed field values, without the fields the server sets on
/// save (change tag, dates, users), which an import does not carry over.
///
/// Each value is read by its `type` (no trial decoding), and written back unchanged but for
/// references into the exported zone, so the record `CKRecord`'s decoder reads from it keeps
/// every value's exact type.
struct ExportedRecord: Codable {
    var recordName: String
    var zoneName: String
    var ownerName: String?
    var recordType: String
    var parent: TypedFieldValue?
    var fields: [String: TypedFieldValue]

    /// The record moved to `zoneID`: references to records of its original zone now point into
    /// `zoneID`.
    func moved(to zoneID: CKRecordZone.ID) -> ExportedRecord {
        var moved = self
        moved.zoneName = zoneID.zoneName
        moved.ownerName = zoneID.ownerName
        moved.parent = parent?.movingReferences(from: zoneName, to: zoneID)
        moved.fields = fields.mapValues { $0.movingReferences(from: zoneName, to: zoneID) }
        return moved
    }
}

/// A field value as `{"type", "kind"?, "value"}`, its value read as the JSON type `type` calls
/// for.
struct TypedFieldValue: Codable {
    /// The value's JSON form.
    enum Payload {
        case string(String)
        case integer(Int64)
        case number(Double)
        case strings([String])
        case numbers([Double])
        case list([TypedFieldValue])
    }

    var type: String
    var kind: Int64?
    var value: Payload
    /// A TIMESTAMP's exact value in seconds since 2001, carried through unchanged.
    var since2001: Double?

    private enum CodingKeys: String, CodingKey { case type, kind, value, since2001 }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        kind = try container.decodeIfPresent(Int64.self, forKey: .kind)
        since2001 = try container.decodeIfPresent(Double.self, forKey: .since2001)
        switch type {
        case "STRING", "BYTES": value = .string(try container.decode(String.self, forKey: .value))
        case "INT64": value = .integer(try container.decode(Int64.self, forKey: .value))
        case "DOUBLE", "TIMESTAMP": value = .number(try container.decode(Double.self, forKey: .value))
        case "REFERENCE", "ASSET": value = .strings(try container.decode([String].self, forKey: .value))
        case "LOCATION": value = .numbers(try container.decode([Double].self, forKey: .value))
        case "LIST": value = .list(try container.decode([TypedFieldValue].self, forKey: .value))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "unknown field type \(type)")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encodeIfPresent(kind, forKey: .kind)
        try container.encodeIfPresent(since2001, forKey: .since2001)
        switch value {
        case .string(let v): try container.encode(v, forKey: .value)
        case .integer(let v): try container.encode(v, forKey: .value)
        case .number(let v): try container.encode(v, forKey: .value)
        case .strings(let v): try container.encode(v, forKey: .value)
        case .numbers(let v): try container.encode(v, forKey: .value)
        case .list(let v): try container.encode(v, forKey: .value)
        }
    }

    /// The value with its references into `sourceZone` (`[name, zone, owner, action]`) moved
    /// into `zoneID`, in lists too.
    func movingReferences(from sourceZone: String, to zoneID: CKRecordZone.ID) -> TypedFieldValue {
        var moved = self
        switch value {
        case .strings(var parts) where type == "REFERENCE" && parts.count == 4 && parts[1] == sourceZone:
            parts[1] = zoneID.zoneName
            parts[2] = zoneID.ownerName
            moved.value = .strings(parts)
        case .list(let items):
            moved.value = .list(items.map { $0.movingReferences(from: sourceZone, to: zoneID) })
        default:
            break
        }
        return moved
    }
}
