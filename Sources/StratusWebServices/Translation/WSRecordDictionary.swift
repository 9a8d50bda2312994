/// A record dictionary as a client sends it in `records/modify` (Apple's *Record Dictionary*):
/// every key optional here; which ones an operation needs is checked where it is used.
package struct WSRecordDictionary: Decodable, Hashable, Sendable {
    /// The record's name; absent on `create` for a server-chosen UUID name.
    package var recordName: String?
    /// The record's type; required to save.
    package var recordType: String?
    /// The change tag the client last saw (required by `update`, `replace`, `delete`); the
    /// translator leaves it to the modify endpoint, which passes it to the engine.
    package var recordChangeTag: String?
    /// The fields to set, by name.
    package var fields: [String: WSFieldDictionary]?
    /// The record's zone; absent means the request's zone.
    package var zoneID: WSZoneID?
    /// The parent reference `{recordName, zoneID?, action?}`; `null` clears it, absent leaves it.
    package var parent: JSONValue?

    /// A record dictionary.
    package init(
        recordName: String? = nil, recordType: String? = nil, recordChangeTag: String? = nil,
        fields: [String: WSFieldDictionary]? = nil, zoneID: WSZoneID? = nil, parent: JSONValue? = nil
    ) {
        self.recordName = recordName
        self.recordType = recordType
        self.recordChangeTag = recordChangeTag
        self.fields = fields
        self.zoneID = zoneID
        self.parent = parent
    }

    private enum CodingKeys: String, CodingKey {
        case recordName, recordType, recordChangeTag, fields, zoneID, parent
    }

    /// The record dictionary `decoder` holds. From a parsed body (``JSONValueDecoder``) it is
    /// read straight from the JSON (``init(reading:)``): `records/modify` decodes up to 400 of
    /// them, and the generic containers cost several times the reading. A refusal, and any
    /// other decoder, take the member-by-member path, whose errors name the JSON path.
    package init(from decoder: any Decoder) throws {
        if let decoding = decoder as? JSONValueDecoding, let read = try? Self(reading: decoding.value) {
            self = read
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        recordName = try container.decodeIfPresent(String.self, forKey: .recordName)
        recordType = try container.decodeIfPresent(String.self, forKey: .recordType)
        recordChangeTag = try container.decodeIfPresent(String.self, forKey: .recordChangeTag)
        fields = try container.decodeIfPresent([String: WSFieldDictionary].self, forKey: .fields)
        zoneID = try container.decodeIfPresent(WSZoneID.self, forKey: .zoneID)
        parent = try container.decodeIfPresent(JSONValue.self, forKey: .parent)
    }
}
