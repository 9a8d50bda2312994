import Foundation
import StratusBackend

/// Creates and deletes record zones in one request (one backend transaction).
///
/// Zones can be created only in the private database: in the public and shared databases every
/// zone fails with `badDatabase`. Saving a zone that already exists succeeds and keeps the
/// existing zone; deleting a zone that does not exist fails with `zoneNotFound`; deleting a zone
/// deletes every record in it. A zone listed twice fails the whole request with
/// `invalidArguments`.
open class CKModifyRecordZonesOperation: CKDatabaseOperation, @unchecked Sendable {
    /// The zones to create (or keep).
    public var recordZonesToSave: [CKRecordZone]?
    /// The IDs of the zones to delete.
    public var recordZoneIDsToDelete: [CKRecordZone.ID]?

    /// Called once per zone to save, with the zone as stored or its error.
    public var perRecordZoneSaveBlock: ((CKRecordZone.ID, Result<CKRecordZone, any Error>) -> Void)?
    /// Called once per zone to delete, with its outcome.
    public var perRecordZoneDeleteBlock: ((CKRecordZone.ID, Result<Void, any Error>) -> Void)?
    /// Called once at the end; fails only for request-level errors (per-zone errors go to the
    /// per-zone blocks).
    public var modifyRecordZonesResultBlock: ((Result<Void, any Error>) -> Void)?
    /// Deprecated in CloudKit: called once at the end with the saved zones, the deleted zone IDs,
    /// and `partialFailure` (per-zone errors under `CKPartialErrorsByItemIDKey`) when some zones
    /// failed.
    @available(macOS, deprecated: 12.0, message: "Use modifyRecordZonesResultBlock instead")
    @available(iOS, deprecated: 15.0, message: "Use modifyRecordZonesResultBlock instead")
    @available(tvOS, deprecated: 15.0, message: "Use modifyRecordZonesResultBlock instead")
    @available(watchOS, deprecated: 8.0, message: "Use modifyRecordZonesResultBlock instead")
    public var modifyRecordZonesCompletionBlock: (([CKRecordZone]?, [CKRecordZone.ID]?, (any Error)?) -> Void)? {
        get { legacyModifyRecordZonesCompletionBlock }
        set { legacyModifyRecordZonesCompletionBlock = newValue }
    }
    /// The storage of `modifyRecordZonesCompletionBlock`, which the operation reads without the deprecation.
    var legacyModifyRecordZonesCompletionBlock: (([CKRecordZone]?, [CKRecordZone.ID]?, (any Error)?) -> Void)?
    /// An empty modify-zones operation.
    public override init() {
        super.init()
    }

    /// An operation that saves `recordZonesToSave` and deletes `recordZoneIDsToDelete`.
    public convenience init(recordZonesToSave: [CKRecordZone]? = nil, recordZoneIDsToDelete: [CKRecordZone.ID]? = nil) {
        self.init()
        self.recordZonesToSave = recordZonesToSave
        self.recordZoneIDsToDelete = recordZoneIDsToDelete
    }

    override func performOperation() {
        var delivery = ModifyTally<CKRecordZone, CKRecordZone.ID>()
        run(
            Event.self, deliver: { self.deliver($0, &delivery) },
            work: { service, session in
                if let error = cancellationError { throw error }
                // A long-lived operation journals its callbacks in the transaction that applies it.
                let journal = session.map { session in
                    { (outcome: ZoneModifyOutcome, txn: any BackendWriteTransaction) throws in
                        try session.append(
                            Event.events(saved: outcome.saved, deleted: outcome.deleted).map(\.encoded), final: true,
                            in: txn)
                    }
                }
                let outcome = try service.modifyZones(
                    saving: recordZonesToSave ?? [], deleting: recordZoneIDsToDelete ?? [], journal: journal)
                let events = Event.events(saved: outcome.saved, deleted: outcome.deleted)
                return session == nil ? .deliver(events) : .journaled(events)
            })
    }

    /// Calls the blocks of one callback.
    private func deliver(_ event: Event, _ tally: inout ModifyTally<CKRecordZone, CKRecordZone.ID>) {
        switch event {
        case .saved(let id, let result):
            // Counted first: optional chaining would skip the count when no block is set.
            let outcome = tally.save(id, result)
            perRecordZoneSaveBlock?(id, outcome)
        case .deleted(let id, let result):
            let outcome = tally.delete(id, result)
            perRecordZoneDeleteBlock?(id, outcome)
        case .finished(let error?):
            deliverCompletion(error: error)
        case .finished(nil):
            modifyRecordZonesResultBlock?(.success(()))
            legacyModifyRecordZonesCompletionBlock?(
                tally.saved, tally.deleted, tally.partialFailure(items: "record zones"))
        }
    }

    override func deliverCompletion(error: CKError) {
        modifyRecordZonesResultBlock?(.failure(error))
        legacyModifyRecordZonesCompletionBlock?(nil, nil, error)
    }
}
