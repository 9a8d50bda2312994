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
    public var recordZoneWithIDChangedBlock: ((CKRecordZone.ID) -> Void)?
    /// Called for a zone that was deleted.
    public var recordZoneWithIDWasDeletedBlock: ((CKRecordZone.ID) -> Void)?
    /// Called instead of the deleted block for a zone the user purged.
    public var recordZoneWithIDWasPurgedBlock: ((CKRecordZone.ID) -> Void)?
    /// Called instead of the deleted block for a zone deleted by an encrypted-data reset.
    public var recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock: ((CKRecordZone.ID) -> Void)?
    /// Called after each batch but the last, with a token to resume from.
    public var changeTokenUpdatedBlock: ((CKServerChangeToken) -> Void)?
    /// Called once at the end with the final token and whether more remains.
    public var fetchDatabaseChangesResultBlock:
        ((Result<(serverChangeToken: CKServerChangeToken, moreComing: Bool), any Error>) -> Void)?
    /// Deprecated in CloudKit: called once at the end; token and error are exclusive.
    @available(macOS, deprecated: 12.0, message: "Use fetchDatabaseChangesResultBlock instead")
    @available(iOS, deprecated: 15.0, message: "Use fetchDatabaseChangesResultBlock instead")
    @available(tvOS, deprecated: 15.0, message: "Use fetchDatabaseChangesResultBlock instead")
    @available(watchOS, deprecated: 8.0, message: "Use fetchDatabaseChangesResultBlock instead")
    public var fetchDatabaseChangesCompletionBlock: ((CKServerChangeToken?, Bool, (any Error)?) -> Void)? {
        get { legacyFetchDatabaseChangesCompletionBlock }
        set { legacyFetchDatabaseChangesCompletionBlock = newValue }
    }
    /// The storage of `fetchDatabaseChangesCompletionBlock`, which the operation reads without the deprecation.
    var legacyFetchDatabaseChangesCompletionBlock: ((CKServerChangeToken?, Bool, (any Error)?) -> Void)?
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
        // The token to continue from: the last one delivered, else the configured one.
        var resumeToken = previousServerChangeToken
        run(
            Event.self, deliver: { self.deliver($0, &resumeToken) },
            work: { service, _ in
                if let error = cancellationError { throw error }
                let batch = try service.fetchDatabaseChanges(since: resumeToken, limit: resultsLimit)
                var events = batch.changed.map { Event.changed($0) } + batch.deleted.map { Event.deleted($0, $1) }
                if batch.moreComing && fetchAllChanges {
                    events.append(.tokenUpdated(batch.token))
                } else {
                    events.append(.finished(.success((batch.token, batch.moreComing))))
                }
                return .deliver(events)
            })
    }

    /// Calls the blocks of one callback.
    private func deliver(_ event: Event, _ resumeToken: inout CKServerChangeToken?) {
        switch event {
        case .changed(let id):
            recordZoneWithIDChangedBlock?(id)
        case .deleted(let id, let kind):
            switch kind {
            case .purged where recordZoneWithIDWasPurgedBlock != nil:
                recordZoneWithIDWasPurgedBlock?(id)
            case .encryptedDataReset where recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock != nil:
                recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock?(id)
            default:
                recordZoneWithIDWasDeletedBlock?(id)
            }
        case .tokenUpdated(let token):
            resumeToken = token
            changeTokenUpdatedBlock?(token)
        case .finished(.success(let (token, moreComing))):
            fetchDatabaseChangesResultBlock?(.success((serverChangeToken: token, moreComing: moreComing)))
            legacyFetchDatabaseChangesCompletionBlock?(token, moreComing, nil)
        case .finished(.failure(let error)):
            deliverCompletion(error: error)
        }
    }

    override func deliverCompletion(error: CKError) {
        fetchDatabaseChangesResultBlock?(.failure(error))
        legacyFetchDatabaseChangesCompletionBlock?(nil, false, error)
    }
}
