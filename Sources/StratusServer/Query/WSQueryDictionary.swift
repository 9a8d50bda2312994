internal import StratusWebServices

/// A query dictionary `{recordType, filterBy?, sortBy?}` (Apple's *Query Dictionary*), as
/// `records/query` and query subscriptions send it.
struct WSQueryDictionary: Decodable, Sendable {
    /// One filter: `{comparator, fieldName | systemFieldName, fieldValue, distance?}`.
    struct Filter: Decodable, Sendable {
        var comparator: String
        var fieldName: String?
        var systemFieldName: String?
        /// `{value, type?}`; `value` is a list for `IN`, `NOT_IN` and the `LIST_…_ANY/ALL` forms.
        var fieldValue: WSFieldDictionary
        /// The radius of `NEAR`, in metres.
        var distance: Double?
    }

    /// One sort: `{fieldName | systemFieldName, ascending?, relativeLocation?}`.
    struct Sort: Decodable, Sendable {
        var fieldName: String?
        var systemFieldName: String?
        /// Smaller values first; `true` when absent.
        var ascending: Bool?
        /// A location dictionary: sort by distance from it (nearest first).
        var relativeLocation: JSONValue?
    }

    var recordType: String
    var filterBy: [Filter]?
    var sortBy: [Sort]?
}

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
