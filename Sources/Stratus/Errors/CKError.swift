public import Foundation

/// The domain of every `CKError`, as in CloudKit.
public let CKErrorDomain = "CKErrorDomain"
/// `userInfo` key of a `partialFailure`: the per-item errors, keyed by record, zone or
/// subscription ID.
public let CKPartialErrorsByItemIDKey = "CKPartialErrors"
/// `userInfo` key: seconds to wait before retrying (an `NSNumber`).
public let CKErrorRetryAfterKey = "CKRetryAfter"
/// `userInfo` key of a `serverRecordChanged` error: the record as stored on the server.
public let CKRecordChangedErrorServerRecordKey = "ServerRecord"
/// `userInfo` key of a `serverRecordChanged` error: the record the client tried to save.
public let CKRecordChangedErrorClientRecordKey = "ClientRecord"
/// `userInfo` key of a `serverRecordChanged` error: the version the client started from.
public let CKRecordChangedErrorAncestorRecordKey = "AncestorRecord"
/// `userInfo` key: whether a user's encrypted-data reset caused a zone's deletion.
public let CKErrorUserDidResetEncryptedDataKey = "CKErrorUserDidResetEncryptedDataKey"

/// An error from CloudKit, with CloudKit's domain, codes and `userInfo` keys.
///
/// Match it as in CloudKit: `catch CKError.zoneNotFound`, `error.code == .serverRecordChanged`,
/// `(error as NSError).code`.
public struct CKError: _BridgedStoredNSError, @unchecked Sendable {
    /// The wrapped `NSError` (domain `CKErrorDomain`).
    public let _nsError: NSError

    /// Wraps an `NSError` of domain `CKErrorDomain`.
    public init(_nsError: NSError) {
        precondition(_nsError.domain == CKErrorDomain)
        self._nsError = _nsError
    }

    /// The error domain, `CKErrorDomain`.
    public static var errorDomain: String { CKErrorDomain }
    /// The error domain, `CKErrorDomain`.
    public static var _nsErrorDomain: String { CKErrorDomain }

    /// CloudKit's error codes, with CloudKit's raw values.
    public enum Code: Int, _ErrorCodeProtocol, Sendable, CaseIterable {
        /// The error type of this code.
        public typealias _ErrorType = CKError
        /// A non-recoverable internal failure.
        case internalError = 1
        /// Some items failed; see `partialErrorsByItemID`. Only deprecated completion blocks
        /// receive it.
        case partialFailure = 2
        /// The network is unavailable.
        case networkUnavailable = 3
        /// The network is up but the service cannot be reached.
        case networkFailure = 4
        /// The container is unknown.
        case badContainer = 5
        /// The service is unavailable; retry after `retryAfterSeconds`.
        case serviceUnavailable = 6
        /// Requests are being throttled; retry after `retryAfterSeconds`.
        case requestRateLimited = 7
        /// The app lacks an entitlement.
        case missingEntitlement = 8
        /// No user is authenticated.
        case notAuthenticated = 9
        /// The user lacks permission.
        case permissionFailure = 10
        /// The record (or other item) does not exist.
        case unknownItem = 11
        /// The request is malformed.
        case invalidArguments = 12
        /// Results were truncated (deprecated).
        case resultsTruncated = 13
        /// The server's record changed since the client's copy; see `serverRecord`.
        case serverRecordChanged = 14
        /// The server refused the request.
        case serverRejectedRequest = 15
        /// An asset file is missing.
        case assetFileNotFound = 16
        /// An asset file changed while it was being saved.
        case assetFileModified = 17
        /// The client's version is too old.
        case incompatibleVersion = 18
        /// A unique-field constraint was violated.
        case constraintViolation = 19
        /// The operation was cancelled.
        case operationCancelled = 20
        /// The change token is no longer valid; fetch again from `nil`.
        case changeTokenExpired = 21
        /// The item was not applied because another item of its atomic batch failed.
        case batchRequestFailed = 22
        /// The zone is busy; retry after a delay.
        case zoneBusy = 23
        /// The operation was sent to a database that cannot perform it.
        case badDatabase = 24
        /// The storage quota is exceeded.
        case quotaExceeded = 25
        /// The zone does not exist.
        case zoneNotFound = 26
        /// The request is too large; split it.
        case limitExceeded = 27
        /// The user deleted the zone.
        case userDeletedZone = 28
        /// A share has too many participants.
        case tooManyParticipants = 29
        /// The record is already shared.
        case alreadyShared = 30
        /// A `parent` or `share` target does not exist.
        case referenceViolation = 31
        /// A managed-account restriction applies.
        case managedAccountRestricted = 32
        /// The participant may need verification.
        case participantMayNeedVerification = 33
        /// The response was lost after the server processed the request.
        case serverResponseLost = 34
        /// The asset is not available.
        case assetNotAvailable = 35
        /// The account is temporarily unavailable.
        case accountTemporarilyUnavailable = 36
        /// The participant was already invited.
        case participantAlreadyInvited = 37
    }
}

extension CKError {
    /// The per-item errors of a `partialFailure`, keyed by item ID.
    public var partialErrorsByItemID: [AnyHashable: any Error]? {
        (userInfo[CKPartialErrorsByItemIDKey] as? [AnyHashable: CKError])?.mapValues { $0 as any Error }
    }

    /// The record as stored on the server, for `serverRecordChanged`.
    public var serverRecord: CKRecord? { userInfo[CKRecordChangedErrorServerRecordKey] as? CKRecord }
    /// The record the client tried to save, for `serverRecordChanged`.
    public var clientRecord: CKRecord? { userInfo[CKRecordChangedErrorClientRecordKey] as? CKRecord }
    /// The version the client started from, for `serverRecordChanged`.
    public var ancestorRecord: CKRecord? { userInfo[CKRecordChangedErrorAncestorRecordKey] as? CKRecord }

    /// Seconds to wait before retrying, when the error says so.
    public var retryAfterSeconds: Double? {
        if let number = userInfo[CKErrorRetryAfterKey] as? NSNumber { return number.doubleValue }
        return userInfo[CKErrorRetryAfterKey] as? Double
    }
}

extension CKError.Code {
    /// The code's name as in CloudKit, such as `"zoneNotFound"`.
    public var name: String { String(describing: self) }
}

extension CKError {
    /// An error of `code` whose description says `message`.
    static func make(_ code: Code, _ message: String, userInfo: [String: Any] = [:]) -> CKError {
        var info = userInfo
        info[NSLocalizedDescriptionKey] = message
        return CKError(code, userInfo: info)
    }

    /// The error's message (its localized description).
    var message: String { (userInfo[NSLocalizedDescriptionKey] as? String) ?? "\(code.name)" }
}
