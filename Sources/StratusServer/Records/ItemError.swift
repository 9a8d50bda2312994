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
        var code = ErrorTable.row(for: error.code).serverErrorCode
        if isCreate && error.code == .serverRecordChanged { code = "EXISTS" }
        var members: [String: JSONValue] = [
            "recordName": .string(recordName),
            "serverErrorCode": .string(code),
            "reason": .string(
                ErrorTable.mayShowReason(of: error) ? error.localizedDescription : "the server failed on this item"),
            "uuid": .string(requestID),
            "stratusErrorCode": .string(error.code.name),
        ]
        members["retryAfter"] = ErrorTable.retryAfter(for: error).map { .integer(Int64($0)) }
        if let server = error.serverRecord {
            members["serverRecord"] = translator.dictionary(
                for: server, numbersAsStrings: numbersAsStrings, desiredKeys: nil)
        }
        return .object(members)
    }
}
