extension CKError {
    /// `CKError.Code.internalError`.
    public static var internalError: Code { .internalError }
    /// `CKError.Code.partialFailure`.
    public static var partialFailure: Code { .partialFailure }
    /// `CKError.Code.networkUnavailable`.
    public static var networkUnavailable: Code { .networkUnavailable }
    /// `CKError.Code.networkFailure`.
    public static var networkFailure: Code { .networkFailure }
    /// `CKError.Code.badContainer`.
    public static var badContainer: Code { .badContainer }
    /// `CKError.Code.serviceUnavailable`.
    public static var serviceUnavailable: Code { .serviceUnavailable }
    /// `CKError.Code.requestRateLimited`.
    public static var requestRateLimited: Code { .requestRateLimited }
    /// `CKError.Code.missingEntitlement`.
    public static var missingEntitlement: Code { .missingEntitlement }
    /// `CKError.Code.notAuthenticated`.
    public static var notAuthenticated: Code { .notAuthenticated }
    /// `CKError.Code.permissionFailure`.
    public static var permissionFailure: Code { .permissionFailure }
    /// `CKError.Code.unknownItem`.
    public static var unknownItem: Code { .unknownItem }
    /// `CKError.Code.invalidArguments`.
    public static var invalidArguments: Code { .invalidArguments }
    /// `CKError.Code.resultsTruncated`.
    public static var resultsTruncated: Code { .resultsTruncated }
    /// `CKError.Code.serverRecordChanged`.
    public static var serverRecordChanged: Code { .serverRecordChanged }
    /// `CKError.Code.serverRejectedRequest`.
    public static var serverRejectedRequest: Code { .serverRejectedRequest }
    /// `CKError.Code.assetFileNotFound`.
    public static var assetFileNotFound: Code { .assetFileNotFound }
    /// `CKError.Code.assetFileModified`.
    public static var assetFileModified: Code { .assetFileModified }
    /// `CKError.Code.incompatibleVersion`.
    public static var incompatibleVersion: Code { .incompatibleVersion }
    /// `CKError.Code.constraintViolation`.
    public static var constraintViolation: Code { .constraintViolation }
    /// `CKError.Code.operationCancelled`.
    public static var operationCancelled: Code { .operationCancelled }
    /// `CKError.Code.changeTokenExpired`.
    public static var changeTokenExpired: Code { .changeTokenExpired }
    /// `CKError.Code.batchRequestFailed`.
    public static var batchRequestFailed: Code { .batchRequestFailed }
    /// `CKError.Code.zoneBusy`.
    public static var zoneBusy: Code { .zoneBusy }
    /// `CKError.Code.badDatabase`.
    public static var badDatabase: Code { .badDatabase }
    /// `CKError.Code.quotaExceeded`.
    public static var quotaExceeded: Code { .quotaExceeded }
    /// `CKError.Code.zoneNotFound`.
    public static var zoneNotFound: Code { .zoneNotFound }
    /// `CKError.Code.limitExceeded`.
    public static var limitExceeded: Code { .limitExceeded }
    /// `CKError.Code.userDeletedZone`.
    public static var userDeletedZone: Code { .userDeletedZone }
    /// `CKError.Code.tooManyParticipants`.
    public static var tooManyParticipants: Code { .tooManyParticipants }
    /// `CKError.Code.alreadyShared`.
    public static var alreadyShared: Code { .alreadyShared }
    /// `CKError.Code.referenceViolation`.
    public static var referenceViolation: Code { .referenceViolation }
    /// `CKError.Code.managedAccountRestricted`.
    public static var managedAccountRestricted: Code { .managedAccountRestricted }
    /// `CKError.Code.participantMayNeedVerification`.
    public static var participantMayNeedVerification: Code { .participantMayNeedVerification }
    /// `CKError.Code.serverResponseLost`.
    public static var serverResponseLost: Code { .serverResponseLost }
    /// `CKError.Code.assetNotAvailable`.
    public static var assetNotAvailable: Code { .assetNotAvailable }
    /// `CKError.Code.accountTemporarilyUnavailable`.
    public static var accountTemporarilyUnavailable: Code { .accountTemporarilyUnavailable }
    /// `CKError.Code.participantAlreadyInvited`.
    public static var participantAlreadyInvited: Code { .participantAlreadyInvited }
}
