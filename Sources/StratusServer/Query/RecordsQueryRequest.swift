internal import StratusWebServices

/// The body of `records/query` (Apple's *Fetching Records Using a Query*).
struct RecordsQueryRequest: Decodable, Sendable {
    var query: WSQueryDictionary
    /// The zone to search; the default zone when absent (unless `zoneWide`).
    var zoneID: WSZoneID?
    /// Records per page; the engine's default (100) when absent, at most 400.
    var resultsLimit: Int?
    /// Where the previous page ended.
    var continuationMarker: String?
    /// The fields to return.
    var desiredKeys: [String]?
    /// Every zone of the database when no `zoneID` is given.
    var zoneWide: Bool?
    /// INT64 and DOUBLE values as strings in the response.
    var numbersAsStrings: Bool?
}
