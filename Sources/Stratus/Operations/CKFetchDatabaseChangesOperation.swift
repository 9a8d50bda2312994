import Foundation

/// Fetches which zones of a database changed or were deleted since a change token.
open class CKFetchDatabaseChangesOperation: CKDatabaseOperation, @unchecked Sendable {
    /// Where to start; `nil` reports every existing zone.
    public var previousServerChangeToken: CKServerChangeToken?
    /// The most zone changes per batch; 0 lets the server choose.
    public var resultsLimit: Int = 0
    /// Whether to keep fetching until drained (default `true`).
    public var fetchAllChanges = true

    /// Called for a zone that was created or changed, or whose records changed.
    public var recordZoneWithIDChangedBlock: (@Sendable (CKRecordZone.ID) -> Void)?
    /// Called for a zone that was deleted.
    public var recordZoneWithIDWasDeletedBlock: (@Sendable (CKRecordZone.ID) -> Void)?
    /// Called instead of the deleted block for a zone the user purged.
    public var recordZoneWithIDWasPurgedBlock: (@Sendable (CKRecordZone.ID) -> Void)?
    /// Called instead of the deleted block for a zone deleted by an encrypted-data reset.
    public var recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock: (@Sendable (CKRecordZone.ID) -> Void)?
    /// Called after each batch but the last, with a token to resume from.
    public var changeTokenUpdatedBlock: (@Sendable (CKServerChangeToken) -> Void)?
    /// Called once at the end with the final token and whether more remains.
    public var fetchDatabaseChangesResultBlock:
        (@Sendable (Result<(serverChangeToken: CKServerChangeToken, moreComing: Bool), any Error>) -> Void)?
    /// Deprecated in CloudKit: called once at the end; token and error are exclusive.
    public var fetchDatabaseChangesCompletionBlock: (@Sendable (CKServerChangeToken?, Bool, (any Error)?) -> Void)?

    /// An operation fetching from the beginning.
    public override init() {
        super.init()
    }

    /// An operation fetching the changes after `previousServerChangeToken`.
    public convenience init(previousServerChangeToken: CKServerChangeToken?) {
        self.init()
        self.previousServerChangeToken = previousServerChangeToken
    }

    override func performOperation() {
        var token = previousServerChangeToken
        do {
            let context = try databaseContext()
            while true {
                if let error = cancellationError { throw error }
                let batch = try context.fetchDatabaseChanges(since: token, limit: resultsLimit)
                // Cancelled from a callback: deliver nothing more, not even the rest of the
                // batch or its token.
                for id in batch.changed {
                    if let error = cancellationError { throw error }
                    recordZoneWithIDChangedBlock?(id)
                }
                for (id, kind) in batch.deleted {
                    if let error = cancellationError { throw error }
                    switch kind {
                    case .purged where recordZoneWithIDWasPurgedBlock != nil:
                        recordZoneWithIDWasPurgedBlock?(id)
                    case .encryptedDataReset where recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock != nil:
                        recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock?(id)
                    default:
                        recordZoneWithIDWasDeletedBlock?(id)
                    }
                }
                token = batch.token
                if let error = cancellationError { throw error }
                if batch.moreComing && fetchAllChanges {
                    changeTokenUpdatedBlock?(batch.token)
                    continue
                }
                fetchDatabaseChangesResultBlock?(
                    .success((serverChangeToken: batch.token, moreComing: batch.moreComing)))
                fetchDatabaseChangesCompletionBlock?(batch.token, batch.moreComing, nil)
                return
            }
        } catch {
            deliverCompletion(error: CKError.fromStore(error))
        }
    }

    override func deliverCompletion(error: CKError) {
        fetchDatabaseChangesResultBlock?(.failure(error))
        fetchDatabaseChangesCompletionBlock?(nil, false, error)
    }
}
