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
    public var perRecordZoneSaveBlock: (@Sendable (CKRecordZone.ID, Result<CKRecordZone, any Error>) -> Void)?
    /// Called once per zone to delete, with its outcome.
    public var perRecordZoneDeleteBlock: (@Sendable (CKRecordZone.ID, Result<Void, any Error>) -> Void)?
    /// Called once at the end; fails only for request-level errors (per-zone errors go to the
    /// per-zone blocks).
    public var modifyRecordZonesResultBlock: (@Sendable (Result<Void, any Error>) -> Void)?
    /// Deprecated in CloudKit: called once at the end with the saved zones, the deleted zone IDs,
    /// and `partialFailure` (per-zone errors under `CKPartialErrorsByItemIDKey`) when some zones
    /// failed.
    public var modifyRecordZonesCompletionBlock:
        (@Sendable ([CKRecordZone]?, [CKRecordZone.ID]?, (any Error)?) -> Void)?

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
        var delivery = Delivery()
        run(
            Event.self, deliver: { self.deliver($0, &delivery) },
            work: { context, session in
                if let error = cancellationError { throw error }
                // A long-lived operation journals its callbacks in the transaction that applies it.
                let journal = session.map { session in
                    { (outcome: ZoneModifyOutcome, txn: any BackendWriteTransaction) throws in
                        try session.append(Event.events(of: outcome).map(\.encoded), final: true, in: txn)
                    }
                }
                let outcome = try context.modifyZones(
                    saving: recordZonesToSave ?? [], deleting: recordZoneIDsToDelete ?? [], journal: journal)
                let events = Event.events(of: outcome)
                return session == nil ? .deliver(events) : .journaled(events)
            })
    }

    /// What the deprecated final block reports, gathered from the per-zone callbacks.
    private struct Delivery {
        var saved: [CKRecordZone] = []
        var deleted: [CKRecordZone.ID] = []
        var partial: [AnyHashable: CKError] = [:]
        var count = 0
    }

    /// Calls the blocks of one callback.
    private func deliver(_ event: Event, _ delivery: inout Delivery) {
        switch event {
        case .saved(let id, let result):
            delivery.count += 1
            switch result {
            case .success(let zone):
                delivery.saved.append(zone)
                perRecordZoneSaveBlock?(id, .success(zone))
            case .failure(let error):
                delivery.partial[id] = error
                perRecordZoneSaveBlock?(id, .failure(error))
            }
        case .deleted(let id, let result):
            delivery.count += 1
            switch result {
            case .success:
                delivery.deleted.append(id)
                perRecordZoneDeleteBlock?(id, .success(()))
            case .failure(let error):
                delivery.partial[id] = error
                perRecordZoneDeleteBlock?(id, .failure(error))
            }
        case .finished(let error?):
            deliverCompletion(error: error)
        case .finished(nil):
            modifyRecordZonesResultBlock?(.success(()))
            let error: CKError? =
                delivery.partial.isEmpty
                ? nil
                : .make(
                    .partialFailure,
                    "Failed to modify some record zones (\(delivery.partial.count) of \(delivery.count))",
                    userInfo: [CKPartialErrorsByItemIDKey: delivery.partial])
            modifyRecordZonesCompletionBlock?(delivery.saved, delivery.deleted, error)
        }
    }

    override func deliverCompletion(error: CKError) {
        modifyRecordZonesResultBlock?(.failure(error))
        modifyRecordZonesCompletionBlock?(nil, nil, error)
    }
}
