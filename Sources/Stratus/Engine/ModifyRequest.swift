import Foundation

/// How a save treats the server's copy (CloudKit's `RecordSavePolicy`, in engine terms).
package enum SavePolicy: Sendable {
    case ifServerRecordUnchanged, changedKeys, allKeys
}

/// How one save treats the server's copy, per item (CloudKit Web Services' `operationType`,
/// decision 0012.3). "The fields given" are the record's changed keys: a record built by setting
/// fields has them all changed, and a field set to `nil` is removed.
package enum SaveMode: Sendable, Hashable {
    /// The record must not exist: a live record fails with `serverRecordChanged` ("already
    /// exists").
    case create
    /// The record must exist (else `unknownItem`) with this change tag (else
    /// `serverRecordChanged`); the fields given are applied, the others kept.
    case update(changeTag: String)
    /// No tag check; the fields given are applied, the others kept; created when absent.
    case forceUpdate
    /// As ``update(changeTag:)``, but the stored fields become exactly the fields given (and the
    /// parent exactly the record's parent).
    case replace(changeTag: String)
    /// No tag check; the stored fields become exactly the fields given; created when absent.
    case forceReplace
}

/// How one delete treats the server's copy, per item (decision 0012.3).
package enum DeleteMode: Sendable, Hashable {
    /// Deletes whatever is stored (the record must exist, else `unknownItem`).
    case force
    /// Deletes only a record with this change tag: absent → `unknownItem`; another tag →
    /// `serverRecordChanged` with the server's record in its `userInfo`.
    case ifChangeTag(String)
}

/// One modify-records request, with the records snapshotted when the operation started.
package struct ModifyRequest: Sendable {
    /// One record to save, snapshotted.
    package struct Save: Sendable {
        package let index: Int
        package let record: CKRecord
        package let id: CKRecord.ID
        package let recordType: String
        /// This save's own mode; `nil` follows the request's ``ModifyRequest/policy``.
        package let mode: SaveMode?
        let values: FieldTable
        package let changedKeys: [String]
        let system: SystemFields

        init(index: Int, record: CKRecord, mode: SaveMode?) {
            let snapshot = record.state.withLock { $0 }
            self.index = index
            self.record = record
            self.id = record.recordID
            self.recordType = record.recordType
            self.mode = mode
            self.values = snapshot.values
            self.changedKeys = snapshot.changed.names
            self.system = snapshot.system
        }

        /// Whether this save writes every field the record holds over the stored ones
        /// (`SavePolicy.allKeys`), not only its changed keys. A mode writes the changed keys
        /// only; the replace modes then drop the fields not given.
        package func writesAllKeys(_ policy: SavePolicy) -> Bool {
            mode == nil && policy == .allKeys
        }
    }
    package var saves: [Save]
    package var deletes: [CKRecord.ID]
    /// Each delete's mode, by position in ``deletes``; a position past the end is
    /// ``DeleteMode/force``.
    package var deleteModes: [DeleteMode]
    /// The policy of saves without a ``Save/mode``.
    package var policy: SavePolicy
    package var atomic: Bool
    package var clientChangeTokenData: Data?

    package init(
        records: [CKRecord], deletes: [CKRecord.ID], policy: SavePolicy, atomic: Bool, clientChangeTokenData: Data?
    ) {
        self.saves = records.enumerated().map { Save(index: $0, record: $1, mode: nil) }
        self.deletes = deletes
        self.deleteModes = []
        self.policy = policy
        self.atomic = atomic
        self.clientChangeTokenData = clientChangeTokenData
    }

    /// A request whose every item has its own mode (stratusd's `records/modify`, decision
    /// 0012.3). Saves still run before deletes, and results come back in request order within
    /// each kind.
    package init(
        saves: [(record: CKRecord, mode: SaveMode)], deletes: [(id: CKRecord.ID, mode: DeleteMode)], atomic: Bool,
        clientChangeTokenData: Data?
    ) {
        self.saves = saves.enumerated().map { Save(index: $0, record: $1.record, mode: $1.mode) }
        self.deletes = deletes.map(\.id)
        self.deleteModes = deletes.map(\.mode)
        self.policy = .ifServerRecordUnchanged
        self.atomic = atomic
        self.clientChangeTokenData = clientChangeTokenData
    }

    /// The mode of the delete at `index` in ``deletes``.
    package func deleteMode(_ index: Int) -> DeleteMode {
        index < deleteModes.count ? deleteModes[index] : .force
    }
}

/// What a modify-records request did, item by item, in request order.
package struct ModifyOutcome: Sendable {
    package var saveResults: [(CKRecord.ID, Result<CKRecord, CKError>)]
    package var deleteResults: [(CKRecord.ID, Result<Void, CKError>)]
    /// The notification logs (namespace numbers) the commit appended to (decision 0014.6).
    package var notifiedLogs: [Int64] = []
    /// The change-log entry each successful save stored, by position in ``saveResults``, kept
    /// for a modify that journals its outcome: the journal stores these bytes rather than
    /// encoding each record again. Empty when not kept; `nil` for a save that failed.
    package var storedEntries: [[UInt8]?] = []

    /// The change-log entry the save at `index` of ``saveResults`` stored, when kept.
    func storedEntry(_ index: Int) -> [UInt8]? {
        index < storedEntries.count ? storedEntries[index] : nil
    }

    /// The record saved at `index` of ``saveResults`` as its kept change-log entry, to pass on
    /// as stored (decision 0018.8); `nil` when not kept. Whether a field holds an asset is
    /// the caller's to tell (it checked the saved record).
    package func storedRecord(_ index: Int, containsAsset: Bool) -> RawChangedRecord? {
        guard let entry = storedEntry(index) else { return nil }
        var reader = ByteReader(entry)
        guard (try? reader.skipCounted()) != nil else { return nil }
        return RawChangedRecord(entry: entry, nameEnd: reader.offset, containsAsset: containsAsset)
    }
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
