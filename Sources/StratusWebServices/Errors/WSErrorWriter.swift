package import Stratus

/// Error dictionaries out (decision 0012.7): the members every per-item error of a records,
/// zones or subscriptions answer has, written from ``ErrorTable`` so a client reads back the
/// same `CKError` (``WSErrorReader``).
package enum WSErrorWriter {
    /// The key a conflict's stored record is written under (Stratus's addition, read back as
    /// `CKError.serverRecord`).
    package static let serverRecordKey = "serverRecord"

    /// `{serverErrorCode, reason, uuid, stratusErrorCode, retryAfter?}` of `error`. The reason of
    /// an internal failure is `hiddenReason` (its own text stays in the server's log, under
    /// `uuid`); the item's own key (`recordName`, `zoneID`, …) is the caller's to add.
    package static func members(for error: CKError, uuid: String, hiddenReason: String) -> [String: JSONValue] {
        var members: [String: JSONValue] = [
            "serverErrorCode": .string(ErrorTable.row(for: error.code).serverErrorCode),
            "reason": .string(ErrorTable.mayShowReason(of: error) ? error.localizedDescription : hiddenReason),
            "uuid": .string(uuid),
            "stratusErrorCode": .string(error.code.name),
        ]
        members["retryAfter"] = ErrorTable.retryAfter(for: error).map { .integer(Int64($0)) }
        return members
    }
}
