/// Record dictionaries read straight from a parsed answer, without `Decodable`: a remote
/// container reads every record of a drain this way, and the decoder's containers and coding
/// paths cost more than the reading itself.
extension WSRecordDictionary {
    /// The record dictionary `json` is, with the members `Decodable` reads and the same
    /// refusals: a member of the wrong kind, a field without a value.
    ///
    /// - Throws: ``WSTranslationError`` naming the member.
    package init(reading json: JSONValue) throws(WSTranslationError) {
        guard case .object(let members) = json else {
            throw WSTranslationError(reason: "not a record dictionary: \(json.briefDescription), not an object")
        }
        self.init(
            recordName: try Self.string(members["recordName"], "recordName"),
            recordType: try Self.string(members["recordType"], "recordType"),
            recordChangeTag: try Self.string(members["recordChangeTag"], "recordChangeTag"),
            fields: try Self.fields(members["fields"]), zoneID: try Self.zoneID(members["zoneID"]),
            parent: members["parent"])
    }

    /// An optional string member (`null` reads as absent, as `Decodable` reads it).
    private static func string(_ value: JSONValue?, _ name: String) throws(WSTranslationError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?:
            throw WSTranslationError(reason: "not a record dictionary: \(name) is \(other.briefDescription)")
        }
    }

    private static func fields(_ value: JSONValue?) throws(WSTranslationError) -> [String: WSFieldDictionary]? {
        switch value {
        case nil, .null?: return nil
        case .object(let members)?:
            var fields: [String: WSFieldDictionary] = [:]
            fields.reserveCapacity(members.count)
            for (name, field) in members {
                guard case .object(let parts) = field, let value = parts["value"] else {
                    throw WSTranslationError(
                        field: name, reason: "not a record dictionary: field '\(name)' is not {value, type}")
                }
                fields[name] = WSFieldDictionary(
                    value: value, type: try string(parts["type"], "fields.\(name).type"),
                    stratusNumberType: try string(parts["stratusNumberType"], "fields.\(name).stratusNumberType"))
            }
            return fields
        case let other?:
            throw WSTranslationError(reason: "not a record dictionary: fields is \(other.briefDescription)")
        }
    }

    private static func zoneID(_ value: JSONValue?) throws(WSTranslationError) -> WSZoneID? {
        switch value {
        case nil, .null?: return nil
        case .object(let members)?:
            guard let name = try string(members["zoneName"], "zoneID.zoneName") else {
                throw WSTranslationError(reason: "not a record dictionary: zoneID has no zoneName")
            }
            return WSZoneID(
                zoneName: name, ownerRecordName: try string(members["ownerRecordName"], "zoneID.ownerRecordName"))
        case let other?:
            throw WSTranslationError(reason: "not a record dictionary: zoneID is \(other.briefDescription)")
        }
    }
}
