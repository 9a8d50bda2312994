extension CKSyncEngine {
    /// CloudKit errors after which a change stays pending to be sent again; after any other
    /// error it is removed, and the app resolves it (a `serverRecordChanged` merge) and adds it
    /// again, as with Apple's engine.
    static let retryableCodes: Set<CKError.Code> = [
        .networkUnavailable, .networkFailure, .serviceUnavailable, .requestRateLimited, .zoneBusy,
        .notAuthenticated, .accountTemporarilyUnavailable, .batchRequestFailed, .serverResponseLost,
        .operationCancelled,
    ]

    /// Sends the pending zone changes, then asks the delegate for batches of record changes until
    /// it has none or a batch makes no progress, posting the events in order. A pending change is
    /// removed only once the server reports its outcome. Returns a retryable error a change
    /// failed with (automatic sync waits before sending again), or `nil`. Once
    /// `willSendChanges` is posted, `didSendChanges` follows, also when the send fails or is
    /// cancelled; the error is thrown after it.
    @discardableResult
    func performSend(
        _ options: CKSyncEngine.SendChangesOptions, reason: CKSyncEngine.SyncReason
    ) async throws -> CKError? {
        let generation = cancellationGeneration
        return try await gate.run { () async throws -> CKError? in
            try checkCancelled(since: generation)
            try await checkAccount()
            let zoneChanges = state.pendingDatabaseChanges.filter { options.scope.contains($0) }
            let recordChanges = state.pendingRecordZoneChanges.filter { options.scope.contains($0) }
            guard !zoneChanges.isEmpty || !recordChanges.isEmpty || state.hasPendingUntrackedChanges else {
                return nil
            }
            let context = SendChangesContext(reason: reason, options: options)
            await post(.willSendChanges(.init(context: context)))
            let sent = await Self.attempt { try await sendAll(zoneChanges, context, generation: generation) }
            await post(.didSendChanges(.init(context: context)))
            return try sent.get()
        }
    }

    /// Sends the pending zone changes, then the delegate's record batches; returns a retryable
    /// error a change failed with.
    private func sendAll(
        _ zoneChanges: [CKSyncEngine.PendingDatabaseChange], _ context: CKSyncEngine.SendChangesContext,
        generation: Int
    ) async throws -> CKError? {
        var retryable: CKError?
        if !zoneChanges.isEmpty {
            retryable = try await sendZoneChanges(zoneChanges, generation: generation)
        }
        if let failure = try await sendRecordBatches(context, generation: generation) {
            retryable = Self.longerWait(retryable, failure)
        }
        return retryable
    }

    /// Saves and deletes the pending zones in one request; returns a retryable error a zone
    /// failed with.
    private func sendZoneChanges(
        _ changes: [CKSyncEngine.PendingDatabaseChange], generation: Int
    ) async throws -> CKError? {
        try checkCancelled(since: generation)
        var saves: [CKRecordZone] = []
        var deletes: [CKRecordZone.ID] = []
        for change in changes {
            switch change {
            case .saveZone(let zone): saves.append(zone)
            case .deleteZone(let zoneID): deletes.append(zoneID)
            }
        }
        let results = try await database.modifyRecordZones(saving: saves, deleting: deletes)
        var event = (saved: [CKRecordZone](), failed: [CKSyncEngine.Event.SentDatabaseChanges.FailedZoneSave]())
        var deleted: [CKRecordZone.ID] = []
        var failedDeletes: [CKRecordZone.ID: CKError] = [:]
        var done: [CKSyncEngine.PendingDatabaseChange] = []
        var retryable: CKError?
        for zone in saves {
            switch results.saveResults[zone.zoneID] ?? .failure(CKError(.internalError)) {
            case .success(let saved):
                event.saved.append(saved)
                done.append(.saveZone(zone))
            case .failure(let error):
                let error = Self.ckError(error)
                event.failed.append(.init(zone: zone, error: error))
                if Self.retryableCodes.contains(error.code) {
                    retryable = Self.longerWait(retryable, error)
                } else {
                    done.append(.saveZone(zone))
                }
            }
        }
        for zoneID in deletes {
            switch results.deleteResults[zoneID] ?? .failure(CKError(.internalError)) {
            case .success:
                deleted.append(zoneID)
                done.append(.deleteZone(zoneID))
                state.forgetZone(zoneID)
            case .failure(let error):
                let error = Self.ckError(error)
                failedDeletes[zoneID] = error
                if Self.retryableCodes.contains(error.code) {
                    retryable = Self.longerWait(retryable, error)
                } else {
                    done.append(.deleteZone(zoneID))
                }
            }
        }
        state.removeSent(done)
        await post(
            .sentDatabaseChanges(
                .init(
                    savedZones: event.saved, failedZoneSaves: event.failed, deletedZoneIDs: deleted,
                    failedZoneDeletes: failedDeletes)))
        await postStateUpdate()
        return retryable
    }

    /// Asks for and sends batches until the delegate has none, or a batch changed nothing;
    /// returns a retryable error a change failed with.
    private func sendRecordBatches(
        _ context: CKSyncEngine.SendChangesContext, generation: Int
    ) async throws -> CKError? {
        var retryable: CKError?
        while true {
            try checkCancelled(since: generation)
            let counts = state.additionCounts
            guard let delegate, let batch = await delegate.nextRecordZoneChangeBatch(context, syncEngine: self),
                !batch.recordsToSave.isEmpty || !batch.recordIDsToDelete.isEmpty
            else { return retryable }
            var progressed = false
            for part in Self.requests(of: batch) {
                try checkCancelled(since: generation)
                let sent = await send(
                    part, atomically: batch.atomicByZone, group: context.options.operationGroup, counts: counts)
                progressed = sent.progressed || progressed
                if let failure = sent.retryable { retryable = Self.longerWait(retryable, failure) }
            }
            if !progressed { return retryable }
        }
    }

    /// Splits a batch into requests: at most 400 items and about 2 MB each, one zone each when
    /// the batch is atomic by zone.
    static func requests(of batch: CKSyncEngine.RecordZoneChangeBatch) -> [(saves: [CKRecord], deletes: [CKRecord.ID])]
    {
        var groups: [[Any]] = []
        if batch.atomicByZone {
            var zones: [CKRecordZone.ID] = []
            for id in batch.recordsToSave.map(\.recordID) + batch.recordIDsToDelete where !zones.contains(id.zoneID) {
                zones.append(id.zoneID)
            }
            for zone in zones {
                groups.append(
                    batch.recordsToSave.filter { $0.recordID.zoneID == zone }
                        + batch.recordIDsToDelete.filter { $0.zoneID == zone })
            }
        } else {
            groups = [batch.recordsToSave + batch.recordIDsToDelete]
        }
        return groups.flatMap(chunked)
    }

    private static func chunked(_ items: [Any]) -> [(saves: [CKRecord], deletes: [CKRecord.ID])] {
        var requests: [(saves: [CKRecord], deletes: [CKRecord.ID])] = [([], [])]
        var bytes = 0
        for item in items {
            let size = (item as? CKRecord).map(SyncEngineRecordSize.estimate) ?? 0
            let current = requests[requests.count - 1]
            let count = current.saves.count + current.deletes.count
            if count > 0
                && (count >= RecordZoneChangeBatch.maximumItems || bytes + size > RecordZoneChangeBatch.maximumBytes)
            {
                requests.append(([], []))
                bytes = 0
            }
            bytes += size
            if let record = item as? CKRecord {
                requests[requests.count - 1].saves.append(record)
            } else if let id = item as? CKRecord.ID {
                requests[requests.count - 1].deletes.append(id)
            }
        }
        return requests
    }

    /// `error` as a `CKError`.
    static func ckError(_ error: any Error) -> CKError {
        error as? CKError ?? CKError(.internalError, userInfo: ["underlyingError": "\(error)"])
    }
}
