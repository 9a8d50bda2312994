/// One `CKModifyRecordsOperation` of a sync engine send, awaited: each record's outcome, as the
/// operation reported it, including under an atomic request.
struct SyncEngineRecordModification: Sendable {
    var saveResults: [CKRecord.ID: Result<CKRecord, any Error>] = [:]
    var deleteResults: [CKRecord.ID: Result<Void, any Error>] = [:]
    var requestError: (any Error)?

    /// Saves `records` unless their server copy changed since they were fetched, and deletes
    /// `recordIDs`, all or nothing when `atomically`.
    static func run(
        on database: CKDatabase, saving records: [CKRecord], deleting recordIDs: [CKRecord.ID],
        atomically: Bool, group: CKOperationGroup
    ) async -> SyncEngineRecordModification {
        await withCheckedContinuation { continuation in
            var outcome = SyncEngineRecordModification()
            let operation = CKModifyRecordsOperation(recordsToSave: records, recordIDsToDelete: recordIDs)
            operation.savePolicy = .ifServerRecordUnchanged
            operation.isAtomic = atomically
            operation.group = group
            operation.perRecordSaveBlock = { id, result in outcome.saveResults[id] = result }
            operation.perRecordDeleteBlock = { id, result in outcome.deleteResults[id] = result }
            operation.modifyRecordsResultBlock = { result in
                if case .failure(let error) = result { outcome.requestError = error }
                continuation.resume(returning: outcome)
            }
            database.add(operation)
        }
    }
}
