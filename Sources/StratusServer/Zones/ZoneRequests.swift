internal import StratusWebServices

/// The body of `zones/lookup`.
struct ZonesLookupRequest: Decodable, Sendable {
    /// `{zoneID}` dictionaries, as Apple's page shows them; a bare zone ID is accepted too.
    struct Item: Decodable, Sendable {
        var zoneID: WSZoneID

        init(from decoder: any Decoder) throws {
            let keyed = try decoder.container(keyedBy: Keys.self)
            if keyed.contains(.zoneID) {
                zoneID = try keyed.decode(WSZoneID.self, forKey: .zoneID)
            } else {
                zoneID = try WSZoneID(from: decoder)
            }
        }

        enum Keys: String, CodingKey { case zoneID }
    }

    var zones: [Item]
}

/// The body of `zones/modify`: `create` and `delete` operations, one per zone.
struct ZonesModifyRequest: Decodable, Sendable {
    struct Operation: Decodable, Sendable {
        /// `create` or `delete`.
        var operationType: String
        var zone: ZonesLookupRequest.Item
    }

    var operations: [Operation]
}
