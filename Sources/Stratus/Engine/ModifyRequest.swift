import Foundation

/// How a save treats the server's copy (CloudKit's `RecordSavePolicy`, in engine terms).
enum SavePolicy: Sendable {
    case ifServerRecordUnchanged, changedKeys, allKeys
}

/// One modify-records request, with the records snapshotted when the operation started.
struct ModifyRequest: Sendable {
    struct Save: Sendable {
        let index: Int
        let record: CKRecord
        let id: CKRecord.ID
        let recordType: String
        let values: FieldTable
        let changedKeys: [String]
        let system: SystemFields
    }
    var saves: [Save]
    var deletes: [CKRecord.ID]
    var policy: SavePolicy
    var atomic: Bool
    var clientChangeTokenData: Data?

    init(records: [CKRecord], deletes: [CKRecord.ID], policy: SavePolicy, atomic: Bool, clientChangeTokenData: Data?) {
        self.saves = records.enumerated().map { index, record in
            let snapshot = record.state.withLock { $0 }
            return Save(
                index: index, record: record, id: record.recordID, recordType: record.recordType,
                values: snapshot.values, changedKeys: snapshot.changed, system: snapshot.system)
        }
        self.deletes = deletes
        self.policy = policy
        self.atomic = atomic
        self.clientChangeTokenData = clientChangeTokenData
    }
}

/// What a modify-records request did, item by item, in request order.
struct ModifyOutcome: Sendable {
    var saveResults: [(CKRecord.ID, Result<CKRecord, CKError>)]
    var deleteResults: [(CKRecord.ID, Result<Void, CKError>)]
}

/// What a modify-zones request did, zone by zone, in request order.
typealias ZoneModifyOutcome = (
    saved: [(CKRecordZone.ID, Result<CKRecordZone, CKError>)],
    deleted: [(CKRecordZone.ID, Result<Void, CKError>)]
)

/// What a modify-subscriptions request did, subscription by subscription, in request order.
typealias SubscriptionModifyOutcome = (
    saved: [(CKSubscription.ID, Result<CKSubscription, CKError>)],
    deleted: [(CKSubscription.ID, Result<Void, CKError>)]
)
