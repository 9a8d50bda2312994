import Foundation

/// How a save treats the server's copy (CloudKit's `RecordSavePolicy`, in engine terms).
package enum SavePolicy: Sendable {
    case ifServerRecordUnchanged, changedKeys, allKeys
}

/// One modify-records request, with the records snapshotted when the operation started.
package struct ModifyRequest: Sendable {
    package struct Save: Sendable {
        package let index: Int
        package let record: CKRecord
        package let id: CKRecord.ID
        package let recordType: String
        let values: FieldTable
        let changedKeys: [String]
        let system: SystemFields
    }
    package var saves: [Save]
    package var deletes: [CKRecord.ID]
    package var policy: SavePolicy
    package var atomic: Bool
    package var clientChangeTokenData: Data?

    package init(
        records: [CKRecord], deletes: [CKRecord.ID], policy: SavePolicy, atomic: Bool, clientChangeTokenData: Data?
    ) {
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
package struct ModifyOutcome: Sendable {
    package var saveResults: [(CKRecord.ID, Result<CKRecord, CKError>)]
    package var deleteResults: [(CKRecord.ID, Result<Void, CKError>)]
}

/// What a modify-zones request did, zone by zone, in request order.
package typealias ZoneModifyOutcome = (
    saved: [(CKRecordZone.ID, Result<CKRecordZone, CKError>)],
    deleted: [(CKRecordZone.ID, Result<Void, CKError>)]
)

/// What a modify-subscriptions request did, subscription by subscription, in request order.
package typealias SubscriptionModifyOutcome = (
    saved: [(CKSubscription.ID, Result<CKSubscription, CKError>)],
    deleted: [(CKSubscription.ID, Result<Void, CKError>)]
)
