import Foundation

/// What the journal says of an outstanding long-lived operation: a Stratus addition, not part
/// of CloudKit's API, for tools and dashboards (`stratus long-lived show`).
///
/// CloudKit answers only with IDs and proxies; an operator also wants to know whether the work
/// is still unfinished, how old it is and how many callbacks are waiting to be replayed.
public struct LongLivedOperationStatus: Sendable, Hashable {
    /// Where the operation is in its life.
    public enum State: String, Sendable, Hashable {
        /// Persisted and its work not finished: a proxy added to a database resumes it.
        case running
        /// Finished, but its final callback was never delivered: a proxy replays every callback.
        /// It is kept for `longLivedOperationRetention` after it finished.
        case completed
    }

    /// The operation's `operationID`.
    public var operationID: CKOperation.ID
    /// The operation's class, such as `"CKModifyRecordsOperation"`.
    public var operationType: String
    /// The scope of the database the operation was added to.
    public var databaseScope: CKDatabase.Scope
    /// Whether the work is unfinished or only its delivery is.
    public var state: State
    /// When the operation was persisted (the journal's clock).
    public var persistedAt: Date
    /// When its work finished; `nil` while it is running.
    public var finishedAt: Date?
    /// How many callbacks are journaled: what a proxy replays before anything live.
    public var journaledCallbacks: Int
}

extension CKContainer {
    /// Passes the journal's view of the outstanding long-lived operation with `operationID` to
    /// `completionHandler`, or `nil` if there is none (never persisted, delivered, cancelled or
    /// purged). A Stratus addition: CloudKit's API has no equivalent.
    public func fetchLongLivedOperationStatus(
        withID operationID: CKOperation.ID,
        completionHandler: @escaping @Sendable (LongLivedOperationStatus?, (any Error)?) -> Void
    ) {
        operationQueue.addOperation {
            do {
                completionHandler(try self.outstandingLongLivedStatus(operationID), nil)
            } catch {
                completionHandler(nil, CKError.fromStore(error))
            }
        }
    }

    /// The journal's view of the outstanding long-lived operation with `operationID`, or `nil`
    /// (see `fetchLongLivedOperationStatus(withID:completionHandler:)`).
    public func longLivedOperationStatus(for operationID: CKOperation.ID) async throws -> LongLivedOperationStatus? {
        try await withCheckedThrowingContinuation { continuation in
            fetchLongLivedOperationStatus(withID: operationID) { status, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: status)
                }
            }
        }
    }
}
