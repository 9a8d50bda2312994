internal import Stratus
internal import StratusWebServices

/// A per-item error dictionary (Apple's *Record Fetch Error Dictionary*): what the response
/// array holds in place of an item that failed, in request order (decision 0012.7).
enum ItemError {
    /// The dictionary for `error` on the record named `recordName`. A conflict carries the
    /// stored record as `serverRecord`, so a client can merge (Stratus's addition, as
    /// `CKError.serverRecord`); `create` of an existing record reads `EXISTS`.
    static func dictionary(
        _ error: CKError, recordName: String, requestID: String, isCreate: Bool = false,
        translator: WSRecordTranslator, numbersAsStrings: Bool
    ) -> JSONValue {
        var members = WSErrorWriter.members(
            for: error, uuid: requestID, hiddenReason: "the server failed on this item")
        members["recordName"] = .string(recordName)
        if isCreate && error.code == .serverRecordChanged { members["serverErrorCode"] = "EXISTS" }
        if let server = error.serverRecord {
            members[WSErrorWriter.serverRecordKey] = translator.dictionary(
                for: server, numbersAsStrings: numbersAsStrings, desiredKeys: nil)
        }
        return .object(members)
    }
}
