import Foundation

/// Long-lived operations: finding operations that outlived the app's previous run.
///
/// Stratus does not persist long-lived operations yet (a later issue): an operation with
/// `configuration.isLongLived = true` runs like any other, and these methods report that no
/// long-lived operation is outstanding — an empty list of IDs, and `nil` for any ID. Apps that
/// re-attach to long-lived operations at launch therefore compile and run unchanged, and simply
/// find nothing to resume.
extension CKContainer {
    /// Passes the IDs of the outstanding long-lived operations (none, in Stratus) to
    /// `completionHandler`.
    public func fetchAllLongLivedOperationIDs(
        completionHandler: @escaping @Sendable ([CKOperation.ID]?, (any Error)?) -> Void
    ) {
        operationQueue.addOperation {
            completionHandler([], nil)
        }
    }

    /// The IDs of the outstanding long-lived operations (none, in Stratus).
    public func allLongLivedOperationIDs() async throws -> [CKOperation.ID] {
        []
    }

    /// Passes the long-lived operation with `operationID` (always `nil` in Stratus: no
    /// operation is persisted) to `completionHandler`.
    public func fetchLongLivedOperation(
        withID operationID: CKOperation.ID,
        completionHandler: @escaping @Sendable (CKOperation?, (any Error)?) -> Void
    ) {
        operationQueue.addOperation {
            completionHandler(nil, nil)
        }
    }

    /// The long-lived operation with `operationID` (always `nil` in Stratus: no operation is
    /// persisted).
    public func longLivedOperation(for operationID: CKOperation.ID) async throws -> CKOperation? {
        nil
    }
}
