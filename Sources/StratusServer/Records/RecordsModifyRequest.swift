internal import StratusWebServices

/// The body of `records/modify` (Apple's *Modifying Records*): operations applied in one
/// transaction, answered one per operation in request order.
struct RecordsModifyRequest: Decodable, Sendable {
    /// One operation: what to do to which record.
    struct Operation: Decodable, Sendable {
        /// `create`, `update`, `forceUpdate`, `replace`, `forceReplace`, `delete` or `forceDelete`.
        var operationType: String
        var record: WSRecordDictionary
        /// The fields to return for this record; overrides the request's.
        var desiredKeys: [String]?
    }

    var operations: [Operation]
    /// The zone of records that name none; the default zone when absent.
    var zoneID: WSZoneID?
    /// In zones with the atomic capability, all or nothing (default `true`).
    var atomic: Bool?
    /// The fields to return in the saved records.
    var desiredKeys: [String]?
    /// INT64 and DOUBLE values as strings in the response.
    var numbersAsStrings: Bool?
    /// `CKModifyRecordsOperation.clientChangeTokenData` in base64 (Stratus's addition, decision
    /// 0016.2): stored with the zones the modify changes, reported with their changes.
    var clientChangeTokenData: String?
}

/// The body of `records/lookup` (Apple's *Fetching Records Using Record Names*).
struct RecordsLookupRequest: Decodable, Sendable {
    /// One record to fetch.
    struct Item: Decodable, Sendable {
        var recordName: String
        /// The fields to return for this record; overrides the request's.
        var desiredKeys: [String]?
    }

    var records: [Item]
    /// The zone of the records; the default zone when absent.
    var zoneID: WSZoneID?
    /// The fields to return.
    var desiredKeys: [String]?
    /// INT64 and DOUBLE values as strings in the response.
    var numbersAsStrings: Bool?
}
