import Foundation
import StratusBackend

/// Failures inside the engine that are not CloudKit semantics: damaged stored bytes.
enum EngineError: Error {
    case corruptKey
    case corruptValue
}

extension CKError {
    /// Maps any error raised while working with the store to the `CKError` a CloudKit client
    /// expects (decision 0002): retryable backend failures become `serviceUnavailable` with a
    /// `retryAfterSeconds`, a full store `quotaExceeded`, damage `internalError`.
    static func fromStore(_ error: any Error) -> CKError {
        if let error = error as? CKError { return error }
        if let error = error as? BackendError {
            switch error.code {
            case .conflict, .busy:
                return .make(
                    .zoneBusy, "the store is busy (\(error.message)); retry after a short delay",
                    userInfo: [CKErrorRetryAfterKey: NSNumber(value: 1.0)])
            case .unavailable:
                return .make(
                    .serviceUnavailable, "the store is unavailable: \(error.message)",
                    userInfo: [CKErrorRetryAfterKey: NSNumber(value: 2.0)])
            case .storageFull:
                return .make(.quotaExceeded, "the store is full: \(error.message)")
            case .invalidArgument:
                return .make(.limitExceeded, "the store cannot hold this item: \(error.message)")
            case .closed:
                return .make(.internalError, "the store was closed")
            default:
                return .make(.internalError, "the store failed (\(error.code)): \(error.message)")
            }
        }
        if let error = error as? EngineError {
            return .make(.internalError, "stored data is damaged (\(error)); restore from a backup")
        }
        return .make(.internalError, "unexpected failure: \(error)")
    }
}
