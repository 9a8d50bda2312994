import Foundation

/// `Codable` records, in a form close to CloudKit Web Services' record dictionary:
/// `{recordName, zoneName, ownerName, recordType, recordChangeTag?, created?, modified?,
///   parent?, fields: {name: {type, value}}}` — numbers keep the Swift type they were stored
/// as, dates are seconds since 1970 (decision 0004).
extension CKRecord: Codable {
    private enum CodingKeys: String, CodingKey {
        case recordName, zoneName, ownerName, recordType, recordChangeTag, created, modified,
            createdBy, modifiedBy, parent, fields
    }

    /// Encodes the value with `encoder`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let snapshot = state.withLock { $0 }
        try container.encode(recordID.recordName, forKey: .recordName)
        try container.encode(recordID.zoneID.zoneName, forKey: .zoneName)
        try container.encode(recordID.zoneID.ownerName, forKey: .ownerName)
        try container.encode(recordType, forKey: .recordType)
        try container.encodeIfPresent(snapshot.system.changeTag, forKey: .recordChangeTag)
        try container.encodeIfPresent(snapshot.system.creationDate?.timeIntervalSince1970, forKey: .created)
        try container.encodeIfPresent(snapshot.system.modificationDate?.timeIntervalSince1970, forKey: .modified)
        try container.encodeIfPresent(snapshot.system.creatorUserRecordName, forKey: .createdBy)
        try container.encodeIfPresent(snapshot.system.lastModifiedUserRecordName, forKey: .modifiedBy)
        try container.encodeIfPresent(snapshot.system.parent.map(CodableFieldValue.init), forKey: .parent)
        try container.encode(
            Dictionary(uniqueKeysWithValues: snapshot.values.lazy.map { ($0.key, CodableFieldValue($0.value)) }),
            forKey: .fields)
    }

    /// Decodes a value encoded with `encode(to:)`.
    public convenience init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let zoneID = CKRecordZone.ID(
            zoneName: try container.decode(String.self, forKey: .zoneName),
            ownerName: try container.decode(String.self, forKey: .ownerName))
        let id = CKRecord.ID(recordName: try container.decode(String.self, forKey: .recordName), zoneID: zoneID)
        var state = State()
        state.system.changeTag = try container.decodeIfPresent(String.self, forKey: .recordChangeTag)
        state.system.creationDate = try container.decodeIfPresent(Double.self, forKey: .created).map(
            Date.init(timeIntervalSince1970:))
        state.system.modificationDate = try container.decodeIfPresent(Double.self, forKey: .modified).map(
            Date.init(timeIntervalSince1970:))
        state.system.creatorUserRecordName = try container.decodeIfPresent(String.self, forKey: .createdBy)
        state.system.lastModifiedUserRecordName = try container.decodeIfPresent(String.self, forKey: .modifiedBy)
        state.system.parent = try container.decodeIfPresent(CodableFieldValue.self, forKey: .parent)?.value
        state.values = FieldTable(
            try container.decode([String: CodableFieldValue].self, forKey: .fields).mapValues(\.value))
        self.init(recordType: try container.decode(String.self, forKey: .recordType), recordID: id, state: state)
    }
}

/// A field value as `{type, value}` JSON.
struct CodableFieldValue: Codable {
    let value: FieldValue

    init(_ value: FieldValue) { self.value = value }

    /// `since2001`: a TIMESTAMP's exact stored value (seconds since 2001, as `Date` keeps it);
    /// `value` keeps seconds since 1970 for readers, but converting it back can lose the last
    /// bit, so a decoder prefers `since2001` when it is there.
    private enum CodingKeys: String, CodingKey { case type, kind, value, since2001 }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch value {
        case .string(let s):
            try container.encode("STRING", forKey: .type)
            try container.encode(s, forKey: .value)
        case .integer(let v, let kind):
            try container.encode("INT64", forKey: .type)
            try container.encode(kind.rawValue, forKey: .kind)
            try container.encode(v, forKey: .value)
        case .double(let v, let kind):
            try container.encode("DOUBLE", forKey: .type)
            try container.encode(kind.rawValue, forKey: .kind)
            try container.encode(v, forKey: .value)
        case .date(let d):
            try container.encode("TIMESTAMP", forKey: .type)
            try container.encode(d.timeIntervalSince1970, forKey: .value)
            try container.encode(d.timeIntervalSinceReferenceDate, forKey: .since2001)
        case .bytes(let d):
            try container.encode("BYTES", forKey: .type)
            try container.encode(d, forKey: .value)
        case .reference(let r):
            try container.encode("REFERENCE", forKey: .type)
            try container.encode([r.recordName, r.zoneName, r.ownerName, String(r.action)], forKey: .value)
        case .location(let l):
            try container.encode("LOCATION", forKey: .type)
            try container.encode(
                [
                    l.latitude, l.longitude, l.altitude, l.horizontalAccuracy, l.verticalAccuracy, l.course, l.speed,
                    l.timestamp,
                ],
                forKey: .value)
        case .asset(let a):
            try container.encode("ASSET", forKey: .type)
            try container.encode([a.contentID, String(a.size), a.pendingFile?.path ?? ""], forKey: .value)
        case .list(let items):
            try container.encode("LIST", forKey: .type)
            try container.encode(items.map(CodableFieldValue.init), forKey: .value)
        case .invalid(let name):
            throw EncodingError.invalidValue(
                name,
                .init(
                    codingPath: encoder.codingPath,
                    debugDescription: "a value of type \(name) cannot be stored in a record"))
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        func kind() throws -> NumberKind {
            let raw = try container.decodeIfPresent(UInt8.self, forKey: .kind) ?? NumberKind.int64.rawValue
            guard let kind = NumberKind(rawValue: raw) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .kind, in: container, debugDescription: "unknown number kind \(raw)")
            }
            return kind
        }
        switch type {
        case "STRING": value = .string(try container.decode(String.self, forKey: .value))
        case "INT64": value = .integer(try container.decode(Int64.self, forKey: .value), try kind())
        case "DOUBLE": value = .double(try container.decode(Double.self, forKey: .value), try kind())
        case "TIMESTAMP":
            if let exact = try container.decodeIfPresent(Double.self, forKey: .since2001) {
                value = .date(Date(timeIntervalSinceReferenceDate: exact))
            } else {
                value = .date(Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .value)))
            }
        case "BYTES": value = .bytes(try container.decode(Data.self, forKey: .value))
        case "REFERENCE":
            let parts = try container.decode([String].self, forKey: .value)
            guard parts.count == 4, let action = UInt8(parts[3]) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .value, in: container, debugDescription: "a reference is [name, zone, owner, action]")
            }
            value = .reference(
                ReferenceValue(recordName: parts[0], zoneName: parts[1], ownerName: parts[2], action: action))
        case "LOCATION":
            let v = try container.decode([Double].self, forKey: .value)
            guard v.count == 8 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .value, in: container, debugDescription: "a location has 8 numbers")
            }
            value = .location(
                LocationValue(
                    latitude: v[0], longitude: v[1], altitude: v[2], horizontalAccuracy: v[3], verticalAccuracy: v[4],
                    course: v[5], speed: v[6], timestamp: v[7]))
        case "ASSET":
            let parts = try container.decode([String].self, forKey: .value)
            guard parts.count == 3, let size = Int64(parts[1]) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .value, in: container, debugDescription: "an asset is [content, size, file]")
            }
            value = .asset(
                AssetValue(
                    contentID: parts[0], size: size,
                    pendingFile: parts[2].isEmpty ? nil : URL(fileURLWithPath: parts[2])))
        case "LIST": value = .list(try container.decode([CodableFieldValue].self, forKey: .value).map(\.value))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "unknown field type \(type)")
        }
    }
}
