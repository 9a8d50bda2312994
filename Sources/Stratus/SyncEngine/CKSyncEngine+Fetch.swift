extension CKSyncEngine {
    /// Fetches database changes, then the changes of every zone with unfetched changes in the
    /// options' scope, posting the events in order. A change token is kept only after the
    /// delegate has handled the changes it covers; an expired token is dropped and the database
    /// or zone fetched again from the start. Once `willFetchChanges` is posted, `didFetchChanges`
    /// follows, also when the fetch fails or is cancelled; the error is thrown after it.
    /// Returns a retryable error a zone's fetch failed with (automatic sync waits before
    /// fetching again) and the zones left unfetched, read before the gate lets another fetch in.
    @discardableResult
    func performFetch(
        _ requested: CKSyncEngine.FetchChangesOptions, reason: CKSyncEngine.SyncReason
    ) async throws -> SyncEngineFetchOutcome {
        let generation = cancellationGeneration
        return try await gate.run { () async throws -> SyncEngineFetchOutcome in
            try checkCancelled(since: generation)
            try await checkAccount()
            let asked = FetchChangesContext(reason: reason, options: requested)
            let options = await delegate?.nextFetchChangesOptions(asked, syncEngine: self) ?? requested
            let context = FetchChangesContext(reason: reason, options: options)
            await post(.willFetchChanges(.init(context: context)))
            let fetched = await Self.attempt { try await fetchAll(options, generation: generation) }
            await post(.didFetchChanges(.init(context: context)))
            return SyncEngineFetchOutcome(
                retryable: try fetched.get(), unfetched: state.zoneIDsWithUnfetchedServerChanges)
        }
    }

    /// Fetches the database changes, then those of the zones to fetch in `options`' scope;
    /// returns a retryable error a zone's fetch failed with.
    private func fetchAll(_ options: CKSyncEngine.FetchChangesOptions, generation: Int) async throws -> CKError? {
        try await fetchDatabaseChanges(generation: generation)
        var retryable: CKError?
        for zoneID in zonesToFetch(options) {
            try checkCancelled(since: generation)
            if let failure = try await fetchZoneChanges(zoneID, generation: generation),
                Self.retryableCodes.contains(failure.code)
            {
                retryable = Self.longerWait(retryable, failure)
            }
        }
        return retryable
    }

    /// The zones to fetch, prioritized ones first.
    private func zonesToFetch(_ options: CKSyncEngine.FetchChangesOptions) -> [CKRecordZone.ID] {
        let zones = state.zoneIDsWithUnfetchedServerChanges.filter { options.scope.contains($0) }
        let first = options.prioritizedZoneIDs.filter(zones.contains)
        return first + zones.filter { !first.contains($0) }
    }

    /// Reads the database's zone changes since the kept token, posts them, then keeps the new
    /// token and the zones to fetch. A deleted zone's state is forgotten; a zone that exists
    /// after the changes (one deleted and made again too) is marked to fetch.
    private func fetchDatabaseChanges(generation: Int) async throws {
        var token = state.databaseToken
        var modifications: [CKDatabase.DatabaseChange.Modification] = []
        var deletions: [CKDatabase.DatabaseChange.Deletion] = []
        var zones = SyncEngineZoneFates()
        while true {
            try checkCancelled(since: generation)
            let batch: CKDatabase.DatabaseChangesBatch
            switch await Self.attempt({ [token] in try await database.databaseChanges(since: token) }) {
            case .success(let value): batch = value
            case .failure(let error as CKError) where error.code == .changeTokenExpired && token != nil:
                token = nil
                modifications = []
                deletions = []
                zones = SyncEngineZoneFates()
                continue
            case .failure(let error): throw error
            }
            modifications += batch.modifications
            deletions += batch.deletions
            zones.add(modifications: batch.modifications, deletions: batch.deletions)
            token = batch.changeToken
            if !batch.moreComing { break }
        }
        if !modifications.isEmpty || !deletions.isEmpty {
            await post(.fetchedDatabaseChanges(.init(modifications: modifications, deletions: deletions)))
        }
        zones.deleted.forEach(state.forgetZone)
        state.markUnfetched(zones.existing)
        if token != state.databaseToken {
            state.databaseToken = token
            await postStateUpdate()
        }
    }

    /// Fetches a zone's record changes between `willFetchRecordZoneChanges` and
    /// `didFetchRecordZoneChanges`. A failure of the zone is posted in the did-event and
    /// returned; a cancellation is posted there too, then thrown.
    private func fetchZoneChanges(_ zoneID: CKRecordZone.ID, generation: Int) async throws -> CKError? {
        await post(.willFetchRecordZoneChanges(.init(zoneID: zoneID)))
        let read = await Self.attempt { try await readZoneChanges(zoneID, generation: generation) }
        let failure: CKError?
        switch read {
        case .success(let error): failure = error
        case .failure(let error): failure = Self.ckError(error)
        }
        if let failure, failure.code == .zoneNotFound || failure.code == .userDeletedZone {
            state.forgetZone(zoneID)
        }
        await post(.didFetchRecordZoneChanges(.init(zoneID: zoneID, error: failure)))
        return try read.get()
    }

    /// Reads a zone's record changes in batches, posting each batch and then the state with the
    /// batch's token; returns the error the zone's fetch failed with, and throws when cancelled.
    private func readZoneChanges(_ zoneID: CKRecordZone.ID, generation: Int) async throws -> CKError? {
        var failure: CKError?
        var moreComing = true
        while moreComing {
            try checkCancelled(since: generation)
            let token = state.zoneToken(zoneID)
            switch await Self.attempt({ try await database.recordZoneChanges(inZoneWith: zoneID, since: token) }) {
            case .success(let batch):
                await deliver(batch, of: zoneID)
                moreComing = batch.moreComing
            case .failure(let error as CKError) where error.code == .changeTokenExpired && token != nil:
                state.setZoneToken(nil, for: zoneID)
            case .failure(let error):
                failure = Self.ckError(error)
                moreComing = false
            }
        }
        return failure
    }

    /// Posts one batch of a zone's changes, then keeps its token and posts the state.
    private func deliver(_ batch: CKDatabase.RecordZoneChangesBatch, of zoneID: CKRecordZone.ID) async {
        let modifications = batch.modificationResultsByID.values.compactMap { try? $0.get() }
        if !modifications.isEmpty || !batch.deletions.isEmpty {
            await post(.fetchedRecordZoneChanges(.init(modifications: modifications, deletions: batch.deletions)))
        }
        state.setZoneToken(batch.changeToken, for: zoneID)
        if !batch.moreComing { state.markFetched(zoneID) }
        await postStateUpdate()
    }
}
