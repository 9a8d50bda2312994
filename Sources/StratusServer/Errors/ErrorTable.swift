import Foundation
import Hummingbird
internal import Stratus

/// How an engine error reads in CloudKit Web Services: decision 0012.7's table. Used for
/// whole-request refusals (an HTTP status) and for per-item errors (the dictionary's
/// `serverErrorCode` only), so both always agree.
enum ErrorTable {
    /// One row of the table.
    struct Row: Equatable, Sendable {
        var status: HTTPResponse.Status
        var serverErrorCode: String
    }

    /// The row for `code`. `serverErrorCode` keeps Apple's values only: generated clients
    /// decode it as an enumeration.
    static func row(for code: CKError.Code) -> Row {
        switch code {
        case .batchRequestFailed:
            return Row(status: .badRequest, serverErrorCode: "ATOMIC_ERROR")
        case .notAuthenticated:
            return Row(status: .misdirectedRequest, serverErrorCode: "AUTHENTICATION_REQUIRED")
        case .permissionFailure, .missingEntitlement, .managedAccountRestricted:
            return Row(status: .forbidden, serverErrorCode: "ACCESS_DENIED")
        case .unknownItem:
            return Row(status: .notFound, serverErrorCode: "NOT_FOUND")
        case .zoneNotFound, .userDeletedZone:
            return Row(status: .notFound, serverErrorCode: "ZONE_NOT_FOUND")
        case .serverRecordChanged:
            return Row(status: .conflict, serverErrorCode: "CONFLICT")
        case .referenceViolation:
            return Row(status: .preconditionFailed, serverErrorCode: "VALIDATING_REFERENCE_ERROR")
        case .quotaExceeded:
            return Row(status: .contentTooLarge, serverErrorCode: "QUOTA_EXCEEDED")
        case .requestRateLimited:
            return Row(status: .tooManyRequests, serverErrorCode: "THROTTLED")
        case .serviceUnavailable, .zoneBusy, .accountTemporarilyUnavailable:
            return Row(status: .serviceUnavailable, serverErrorCode: "TRY_AGAIN_LATER")
        case .internalError, .serverResponseLost, .networkFailure, .networkUnavailable, .partialFailure,
            .operationCancelled, .incompatibleVersion:
            return Row(status: .internalServerError, serverErrorCode: "INTERNAL_ERROR")
        default:
            return Row(status: .badRequest, serverErrorCode: "BAD_REQUEST")
        }
    }

    /// The seconds to advertise in `retryAfter` for `error`: the engine's own figure, else 1 s
    /// for the codes that a retry cures, else none.
    static func retryAfter(for error: CKError) -> Int? {
        if let seconds = error.retryAfterSeconds { return max(1, Int(seconds.rounded(.up))) }
        switch error.code {
        case .serviceUnavailable, .zoneBusy, .requestRateLimited, .accountTemporarilyUnavailable: return 1
        default: return nil
        }
    }

    /// Whether `error`'s text may be shown to the client. An internal failure's text stays in
    /// the log, tied to the request ID.
    static func mayShowReason(of error: CKError) -> Bool {
        row(for: error.code).status != .internalServerError
    }
}

extension ServerError {
    /// The whole-request refusal for an engine error.
    init(_ error: CKError) {
        let row = ErrorTable.row(for: error.code)
        self.init(
            row.status, row.serverErrorCode,
            ErrorTable.mayShowReason(of: error)
                ? error.localizedDescription : "the server failed; its log has the details under this request's uuid",
            retryAfter: ErrorTable.retryAfter(for: error), stratusErrorCode: error.code.name)
    }
}
