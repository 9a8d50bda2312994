package import Stratus

/// How an engine error reads in CloudKit Web Services: decision 0012.7's table. Used for
/// whole-request refusals (an HTTP status) and for per-item errors (the dictionary's
/// `serverErrorCode` only), so both always agree. The statuses are numbers: the server turns
/// them into its HTTP library's status, and a client reads them without one.
package enum ErrorTable {
    /// One row of the table.
    package struct Row: Equatable, Sendable {
        /// The HTTP status code of a whole-request refusal.
        package var status: Int
        /// Apple's `serverErrorCode`, such as `NOT_FOUND`.
        package var serverErrorCode: String
    }

    /// The row for `code`. `serverErrorCode` keeps Apple's values only: generated clients
    /// decode it as an enumeration.
    package static func row(for code: CKError.Code) -> Row {
        switch code {
        case .batchRequestFailed:
            return Row(status: 400, serverErrorCode: "ATOMIC_ERROR")
        case .notAuthenticated:
            return Row(status: 421, serverErrorCode: "AUTHENTICATION_REQUIRED")
        case .permissionFailure, .missingEntitlement, .managedAccountRestricted:
            return Row(status: 403, serverErrorCode: "ACCESS_DENIED")
        case .unknownItem:
            return Row(status: 404, serverErrorCode: "NOT_FOUND")
        case .zoneNotFound, .userDeletedZone:
            return Row(status: 404, serverErrorCode: "ZONE_NOT_FOUND")
        case .serverRecordChanged:
            return Row(status: 409, serverErrorCode: "CONFLICT")
        case .referenceViolation:
            return Row(status: 412, serverErrorCode: "VALIDATING_REFERENCE_ERROR")
        case .quotaExceeded:
            return Row(status: 413, serverErrorCode: "QUOTA_EXCEEDED")
        case .requestRateLimited:
            return Row(status: 429, serverErrorCode: "THROTTLED")
        case .serviceUnavailable, .zoneBusy, .accountTemporarilyUnavailable:
            return Row(status: 503, serverErrorCode: "TRY_AGAIN_LATER")
        case .internalError, .serverResponseLost, .networkFailure, .networkUnavailable, .partialFailure,
            .operationCancelled, .incompatibleVersion:
            return Row(status: 500, serverErrorCode: "INTERNAL_ERROR")
        default:
            return Row(status: 400, serverErrorCode: "BAD_REQUEST")
        }
    }

    /// The seconds to advertise in `retryAfter` for `error`: the engine's own figure, else 1 s
    /// for the codes that a retry cures, else none.
    package static func retryAfter(for error: CKError) -> Int? {
        if let seconds = error.retryAfterSeconds { return max(1, Int(seconds.rounded(.up))) }
        switch error.code {
        case .serviceUnavailable, .zoneBusy, .requestRateLimited, .accountTemporarilyUnavailable: return 1
        default: return nil
        }
    }

    /// Whether `error`'s text may be shown to the client. An internal failure's text stays in
    /// the log, tied to the request ID.
    package static func mayShowReason(of error: CKError) -> Bool {
        row(for: error.code).status != 500
    }
}
