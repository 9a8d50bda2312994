public import Foundation
import StratusBackend

/// Saves and deletes records in one request: one backend transaction, with CloudKit's save
/// policies, conflicts and atomic zones.
open class CKModifyRecordsOperation: CKDatabaseOperation, @unchecked Sendable {
    /// How a save treats the server's copy of a record.
    public enum RecordSavePolicy: Int, Sendable {
        /// Save only if the record's change tag matches the server's (the default); sends only
        /// the changed keys.
        case ifServerRecordUnchanged = 0
        /// Save the changed keys without comparing change tags.
        case changedKeys = 1
        /// Save every key of the record without comparing change tags.
        case allKeys = 2
    }

    /// The records to save.
    public var recordsToSave: [CKRecord]?
    /// The IDs of the records to delete.
    public var recordIDsToDelete: [CKRecord.ID]?
    /// How saves treat the server's copies (default `.ifServerRecordUnchanged`).
    public var savePolicy: RecordSavePolicy = .ifServerRecordUnchanged
    /// Opaque data stored with each zone the request touches, returned by its change fetches.
    public var clientChangeTokenData: Data?
    /// Whether a failure in a zone with the `atomic` capability cancels all of that zone's
    /// changes (default `true`).
    public var isAtomic = true

    /// Reports upload progress of a record (once with 1.0 per record in Stratus).
    public var perRecordProgressBlock: ((CKRecord, Double) -> Void)?
    /// Called once per record to save, with the saved record or its error.
    public var perRecordSaveBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?
    /// Called once per record to delete, with its outcome.
    public var perRecordDeleteBlock: ((CKRecord.ID, Result<Void, any Error>) -> Void)?
    /// Called once at the end; fails only for request-level errors (per-item errors go to the
    /// per-item blocks).
    public var modifyRecordsResultBlock: ((Result<Void, any Error>) -> Void)?
    /// Deprecated in CloudKit: called per saved record; ignored when `perRecordSaveBlock` is set.
    @available(macOS, deprecated: 12.0, message: "Use perRecordSaveBlock instead")
    @available(iOS, deprecated: 15.0, message: "Use perRecordSaveBlock instead")
    @available(tvOS, deprecated: 15.0, message: "Use perRecordSaveBlock instead")
    @available(watchOS, deprecated: 8.0, message: "Use perRecordSaveBlock instead")
    public var perRecordCompletionBlock: ((CKRecord, (any Error)?) -> Void)? {
        get { legacyPerRecordCompletionBlock }
        set { legacyPerRecordCompletionBlock = newValue }
    }
    /// The storage of `perRecordCompletionBlock`, which the operation reads without the deprecation.
    var legacyPerRecordCompletionBlock: ((CKRecord, (any Error)?) -> Void)?
    /// Deprecated in CloudKit: called once at the end with the saved records, the deleted IDs,
    /// and `partialFailure` when some items failed.
    @available(macOS, deprecated: 12.0, message: "Use modifyRecordsResultBlock instead")
    @available(iOS, deprecated: 15.0, message: "Use modifyRecordsResultBlock instead")
    @available(tvOS, deprecated: 15.0, message: "Use modifyRecordsResultBlock instead")
    @available(watchOS, deprecated: 8.0, message: "Use modifyRecordsResultBlock instead")
    public var modifyRecordsCompletionBlock: (([CKRecord]?, [CKRecord.ID]?, (any Error)?) -> Void)? {
        get { legacyModifyRecordsCompletionBlock }
        set { legacyModifyRecordsCompletionBlock = newValue }
    }
    /// The storage of `modifyRecordsCompletionBlock`, which the operation reads without the deprecation.
    var legacyModifyRecordsCompletionBlock: (([CKRecord]?, [CKRecord.ID]?, (any Error)?) -> Void)?
    /// An empty modify operation.
    public override init() {
        super.init()
    }

    /// An operation that saves `recordsToSave` and deletes `recordIDsToDelete`.
    public convenience init(recordsToSave: [CKRecord]? = nil, recordIDsToDelete: [CKRecord.ID]? = nil) {
        self.init()
        self.recordsToSave = recordsToSave
        self.recordIDsToDelete = recordIDsToDelete
    }

    override func performOperation() {
        // Only the progress and deprecated per-record blocks need the records by ID; hashing
        // every ID costs a save about 4 % of its instructions when neither is set.
        let needsRecords = perRecordProgressBlock != nil || legacyPerRecordCompletionBlock != nil
        let records =
            needsRecords
            ? Dictionary((recordsToSave ?? []).map { ($0.recordID, $0) }, uniquingKeysWith: { a, _ in a }) : [:]
        var delivery = ModifyTally<CKRecord, CKRecord.ID>()
        run(
            Event.self, deliver: { self.deliver($0, records: records, &delivery) },
            work: { service, session in
                if let error = cancellationError { throw error }
                let request = ModifyRequest(
                    records: recordsToSave ?? [], deletes: recordIDsToDelete ?? [],
                    policy: savePolicy.enginePolicy, atomic: isAtomic, clientChangeTokenData: clientChangeTokenData)
                // A long-lived modify journals its callbacks in the transaction that applies it.
                let journal = session.map { session in
                    { (outcome: ModifyOutcome, txn: any BackendWriteTransaction) throws in
                        try session.append(
                            Event.events(saved: outcome.saveResults, deleted: outcome.deleteResults).map(\.encoded),
                            final: true, in: txn)
                    }
                }
                let outcome = try service.modifyRecords(
                    request, cancelled: { [weak self] in self?.cancellationError }, journal: journal)
                let events = Event.events(saved: outcome.saveResults, deleted: outcome.deleteResults)
                return session == nil ? .deliver(events) : .journaled(events)
            })
    }

    /// Calls the blocks of one callback; `records` are the records to save, by ID, for the
    /// progress and deprecated per-record blocks.
    private func deliver(
        _ event: Event, records: [CKRecord.ID: CKRecord], _ tally: inout ModifyTally<CKRecord, CKRecord.ID>
    ) {
        switch event {
        case .saved(let id, let result):
            if let record = records[id] { perRecordProgressBlock?(record, 1.0) }
            let outcome = tally.save(id, result)
            if let block = perRecordSaveBlock {
                block(id, outcome)
            } else {
                switch result {
                case .success(let record): legacyPerRecordCompletionBlock?(record, nil)
                case .failure(let error): if let record = records[id] { legacyPerRecordCompletionBlock?(record, error) }
                }
            }
        case .deleted(let id, let result):
            let outcome = tally.delete(id, result)
            perRecordDeleteBlock?(id, outcome)
        case .finished(let error?):
            deliverCompletion(error: error)
        case .finished(nil):
            modifyRecordsResultBlock?(.success(()))
            legacyModifyRecordsCompletionBlock?(tally.saved, tally.deleted, tally.partialFailure(items: "records"))
        }
    }

    override func deliverCompletion(error: CKError) {
        modifyRecordsResultBlock?(.failure(error))
        legacyModifyRecordsCompletionBlock?(nil, nil, error)
    }
}

extension CKModifyRecordsOperation.RecordSavePolicy {
    var enginePolicy: SavePolicy {
        switch self {
        case .ifServerRecordUnchanged: return .ifServerRecordUnchanged
        case .changedKeys: return .changedKeys
        case .allKeys: return .allKeys
        }
    }
}
