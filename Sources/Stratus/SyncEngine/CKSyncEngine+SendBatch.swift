extension CKSyncEngine {
    /// Sends one request of a batch, removes the changes the server settled from the pending
    /// ones (unless added again since `counts` were taken, when the batch was asked for), and
    /// posts `sentRecordZoneChanges` then `stateUpdate`. Returns whether any pending change was
    /// settled (saved, deleted, or failed for good), and a retryable error an item failed with
    /// (the one asking for the longest wait), for automatic sync's backoff.
    func send(
        _ request: (saves: [CKRecord], deletes: [CKRecord.ID]), atomically: Bool, group: CKOperationGroup,
        counts: [SyncEngineStoredState.RecordChange: Int]
    ) async -> (progressed: Bool, retryable: CKError?) {
        let outcome = await SyncEngineRecordModification.run(
            on: database, saving: request.saves, deleting: request.deletes, atomically: atomically, group: group)
        // An item the operation gave no outcome for failed with the request (all of them when the
        // request as a whole failed), or with its atomic batch.
        let unreported = Self.ckError(outcome.requestError ?? CKError(.batchRequestFailed))
        var saved: [CKRecord] = []
        var failedSaves: [CKSyncEngine.Event.SentRecordZoneChanges.FailedRecordSave] = []
        var deleted: [CKRecord.ID] = []
        var failedDeletes: [CKRecord.ID: CKError] = [:]
        var settled: [CKSyncEngine.PendingRecordZoneChange] = []
        var retryable: CKError?
        for record in request.saves {
            switch outcome.saveResults[record.recordID] ?? .failure(unreported) {
            case .success(let savedRecord):
                saved.append(savedRecord)
                settled.append(.saveRecord(record.recordID))
            case .failure(let error):
                let error = Self.ckError(error)
                failedSaves.append(.init(record: record, error: error))
                if Self.retryableCodes.contains(error.code) {
                    retryable = Self.longerWait(retryable, error)
                } else {
                    settled.append(.saveRecord(record.recordID))
                }
            }
        }
        for id in request.deletes {
            switch outcome.deleteResults[id] ?? .failure(unreported) {
            case .success:
                deleted.append(id)
                settled.append(.deleteRecord(id))
            case .failure(let error):
                let error = Self.ckError(error)
                failedDeletes[id] = error
                if Self.retryableCodes.contains(error.code) {
                    retryable = Self.longerWait(retryable, error)
                } else {
                    settled.append(.deleteRecord(id))
                }
            }
        }
        state.removeSent(settled, unchangedSince: counts)
        await post(
            .sentRecordZoneChanges(
                .init(
                    savedRecords: saved, failedRecordSaves: failedSaves, deletedRecordIDs: deleted,
                    failedRecordDeletes: failedDeletes)))
        await postStateUpdate()
        return (!settled.isEmpty, retryable)
    }

    /// Of two retryable errors, the one asking for the longer wait.
    static func longerWait(_ kept: CKError?, _ new: CKError) -> CKError {
        guard let kept else { return new }
        return (new.retryAfterSeconds ?? 0) > (kept.retryAfterSeconds ?? 0) ? new : kept
    }
}
