import Foundation

/// Long-lived operations: finding the operations that outlived the app's previous run
/// (decision 0006, `Docs/LongLivedOperations.md`).
///
/// An operation whose `configuration.isLongLived` is `true` when it starts is written to a
/// journal in the container's store before its work begins; then its
/// `longLivedOperationWasPersistedBlock` runs. Every callback it produces is journaled as it is
/// delivered. A later process — or this one — lists the outstanding operations, fetches one as
/// a proxy of the same class, sets its callbacks, and adds it to a `CKDatabase`: the proxy
/// delivers every journaled callback in the original order without doing the work again, then
/// finishes the work live if it was interrupted.
///
/// ```swift
/// container.fetchAllLongLivedOperationIDs { operationIDs, error in
///     for operationID in operationIDs ?? [] {
///         container.fetchLongLivedOperation(withID: operationID) { operation, error in
///             guard let operation = operation as? CKModifyRecordsOperation else { return }
///             operation.modifyRecordsResultBlock = { result in … }
///             container.privateCloudDatabase.add(operation)
///         }
///     }
/// }
/// ```
extension CKContainer {
    /// Passes the IDs of the outstanding long-lived operations to `completionHandler`: those
    /// still running, and those completed whose final callback was never delivered (for
    /// `longLivedOperationRetention`, 24 hours by default).
    ///
    /// An operation is listed once its `longLivedOperationWasPersistedBlock` has run, and leaves
    /// the list when its final callback was delivered or it was cancelled.
    public func fetchAllLongLivedOperationIDs(
        completionHandler: @escaping @Sendable ([CKOperation.ID]?, (any Error)?) -> Void
    ) {
        operationQueue.addOperation {
            do {
                completionHandler(try self.outstandingLongLivedOperationIDs(), nil)
            } catch {
                completionHandler(nil, CKError.fromStore(error))
            }
        }
    }

    /// The IDs of the outstanding long-lived operations (see
    /// `fetchAllLongLivedOperationIDs(completionHandler:)`).
    public func allLongLivedOperationIDs() async throws -> [CKOperation.ID] {
        try await withCheckedThrowingContinuation { continuation in
            fetchAllLongLivedOperationIDs { ids, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: ids ?? [])
                }
            }
        }
    }

    /// Passes a proxy of the outstanding long-lived operation with `operationID` to
    /// `completionHandler`, or `nil` if there is none (never persisted, delivered, cancelled or
    /// purged).
    ///
    /// The proxy is of the original operation's class, configured as it was (records to save,
    /// IDs, tokens, query, …) with the same `operationID`. Set its callbacks and add it to a
    /// `CKDatabase`: it replays every journaled callback, in order, then finishes the work if it
    /// was interrupted. Adding it to the container instead fails it with `invalidArguments`.
    @preconcurrency
    public func fetchLongLivedOperation(
        withID operationID: CKOperation.ID,
        completionHandler: @escaping @Sendable (CKOperation?, (any Error)?) -> Void
    ) {
        operationQueue.addOperation {
            do {
                completionHandler(try self.longLivedProxy(operationID), nil)
            } catch {
                completionHandler(nil, CKError.fromStore(error))
            }
        }
    }

    /// A proxy of the outstanding long-lived operation with `operationID`, or `nil` (see
    /// `fetchLongLivedOperation(withID:completionHandler:)`).
    public func longLivedOperation(for operationID: CKOperation.ID) async throws -> CKOperation? {
        try await withCheckedThrowingContinuation { continuation in
            fetchLongLivedOperation(withID: operationID) { operation, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: operation)
                }
            }
        }
    }
}
