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
}
