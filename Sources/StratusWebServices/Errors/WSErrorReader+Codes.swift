package import Stratus

extension WSErrorReader {
    /// The code of an error without a (known) `stratusErrorCode` — Apple's server, or an error
    /// the server wrote before the engine had a code for it: ``ErrorTable``'s rows read
    /// backwards (a row shared by several codes reads as the first of them), then the HTTP
    /// status; `internalError` when neither says.
    package static func code(serverErrorCode: String?, status: Int?) -> CKError.Code {
        if let serverErrorCode, let code = codes[serverErrorCode] { return code }
        switch status {
        case 400?: return .invalidArguments
        case 401?, 421?: return .notAuthenticated
        case 403?: return .permissionFailure
        case 404?: return .unknownItem
        case 409?: return .serverRecordChanged
        case 412?: return .referenceViolation
        case 413?: return .quotaExceeded
        case 429?: return .requestRateLimited
        case 502?, 503?, 504?: return .serviceUnavailable
        default: return .internalError
        }
    }

    /// `serverErrorCode` → code: Apple's values, with `EXISTS` (a `create` of an existing
    /// record) a conflict as the engine reports it.
    private static let codes: [String: CKError.Code] = [
        "ATOMIC_ERROR": .batchRequestFailed, "AUTHENTICATION_FAILED": .notAuthenticated,
        "AUTHENTICATION_REQUIRED": .notAuthenticated, "ACCESS_DENIED": .permissionFailure,
        "NOT_FOUND": .unknownItem, "ZONE_NOT_FOUND": .zoneNotFound, "CONFLICT": .serverRecordChanged,
        "EXISTS": .serverRecordChanged, "VALIDATING_REFERENCE_ERROR": .referenceViolation,
        "QUOTA_EXCEEDED": .quotaExceeded, "THROTTLED": .requestRateLimited, "TRY_AGAIN_LATER": .serviceUnavailable,
        "INTERNAL_ERROR": .internalError, "BAD_REQUEST": .invalidArguments, "UNIQUE_FIELD_ERROR": .constraintViolation,
        "LIMIT_EXCEEDED": .limitExceeded,
    ]
}

extension CKError.Code {
    /// The code named `name` (``name``), such as `"zoneNotFound"`; `nil` for a name this
    /// version of Stratus does not know.
    package init?(name: String) {
        guard let code = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = code
    }
}
