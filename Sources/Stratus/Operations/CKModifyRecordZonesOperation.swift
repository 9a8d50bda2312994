import Foundation

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
        let outcome:
            (
                saved: [(CKRecordZone.ID, Result<CKRecordZone, CKError>)],
                deleted: [(CKRecordZone.ID, Result<Void, CKError>)]
            )
        do {
            let context = try databaseContext()
            if let error = cancellationError { throw error }
            outcome = try context.modifyZones(saving: recordZonesToSave ?? [], deleting: recordZoneIDsToDelete ?? [])
        } catch {
            deliverCompletion(error: CKError.fromStore(error))
            return
        }
        var saved: [CKRecordZone] = []
        var deleted: [CKRecordZone.ID] = []
        var partial: [AnyHashable: CKError] = [:]
        for (id, result) in outcome.saved {
            switch result {
            case .success(let zone):
                saved.append(zone)
                perRecordZoneSaveBlock?(id, .success(zone))
            case .failure(let error):
                partial[id] = error
                perRecordZoneSaveBlock?(id, .failure(error))
            }
        }
        for (id, result) in outcome.deleted {
            switch result {
            case .success:
                deleted.append(id)
                perRecordZoneDeleteBlock?(id, .success(()))
            case .failure(let error):
                partial[id] = error
                perRecordZoneDeleteBlock?(id, .failure(error))
            }
        }
        modifyRecordZonesResultBlock?(.success(()))
        let error: CKError? =
            partial.isEmpty
            ? nil
            : .make(
                .partialFailure,
                "Failed to modify some record zones (\(partial.count) of \(outcome.saved.count + outcome.deleted.count))",
                userInfo: [CKPartialErrorsByItemIDKey: partial])
        modifyRecordZonesCompletionBlock?(saved, deleted, error)
    }

    override func deliverCompletion(error: CKError) {
        modifyRecordZonesResultBlock?(.failure(error))
        modifyRecordZonesCompletionBlock?(nil, nil, error)
    }
}
