import Foundation
package import Stratus

/// Error dictionaries in: the `CKError` a client rebuilds from a per-item error dictionary or a
/// whole-request error body (decision 0016.5), the inverse of ``WSErrorWriter`` and the server's
/// refusals.
package enum WSErrorReader {
    /// The CKError that an error dictionary stands for — a per-item error in records, zones or
    /// subscriptions answers, or a whole-request error body (`status` is the HTTP status; `nil`
    /// for a per-item error).
    ///
    /// The code is `stratusErrorCode` (the exact `CKError.Code`) when present and known, else
    /// mapped from `serverErrorCode` (``code(serverErrorCode:status:)``); `reason` becomes the
    /// localized description, `retryAfter` the `retryAfterSeconds`, and a conflict's stored
    /// record (``WSErrorWriter/serverRecordKey``) the `serverRecord`, decoded by `translator`.
    package static func error(from json: JSONValue, status: Int?, translator: WSRecordTranslator) -> CKError {
        var code: CKError.Code?
        if case .string(let name)? = json["stratusErrorCode"] { code = CKError.Code(name: name) }
        var serverErrorCode: String?
        if case .string(let text)? = json["serverErrorCode"] { serverErrorCode = text }
        let resolved = code ?? self.code(serverErrorCode: serverErrorCode, status: status)
        var userInfo: [String: Any] = [:]
        if case .string(let reason)? = json["reason"] { userInfo[NSLocalizedDescriptionKey] = reason }
        if let seconds = retryAfter(json["retryAfter"]) { userInfo[CKErrorRetryAfterKey] = NSNumber(value: seconds) }
        if let server = json[WSErrorWriter.serverRecordKey], server != .null,
            let record = try? translator.serverRecord(from: server, defaultZone: .default)
        {
            userInfo[CKRecordChangedErrorServerRecordKey] = record
        }
        return CKError(resolved, userInfo: userInfo)
    }

    /// The seconds of a `retryAfter` member: a number, or a numeric string.
    private static func retryAfter(_ value: JSONValue?) -> Double? {
        switch value {
        case .integer(let seconds)?: return Double(seconds)
        case .double(let seconds)? where seconds.isFinite: return seconds
        case .string(let text)?: return Double(text)
        default: return nil
        }
    }
}
