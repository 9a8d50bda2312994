internal import StratusWebServices

/// The body of `records/changes` (Apple's *Fetching Record Changes*): one zone's changes.
struct RecordsChangesRequest: Decodable, Sendable {
    var zoneID: WSZoneID
    var syncToken: String?
    var resultsLimit: Int?
    var desiredKeys: [String]?
    var numbersAsStrings: Bool?
}

/// The body of `changes/zone` (Apple's *Fetching Record Zone Changes*): several zones' changes.
struct ChangesZoneRequest: Decodable, Sendable {
    /// One zone, with its own token and overrides.
    struct Zone: Decodable, Sendable {
        var zoneID: WSZoneID
        var syncToken: String?
        var resultsLimit: Int?
        var desiredKeys: [String]?
    }

    var zones: [Zone]
    var resultsLimit: Int?
    var desiredKeys: [String]?
    var numbersAsStrings: Bool?
}

/// The body of `changes/database` and of the older `zones/changes` (whose token is
/// `metaSyncToken`).
struct ChangesDatabaseRequest: Decodable, Sendable {
    var syncToken: String?
    var metaSyncToken: String?
    var resultsLimit: Int?
}
