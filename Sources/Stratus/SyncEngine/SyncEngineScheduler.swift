import Synchronization

/// A sync engine's automatic sync (decision 0017.7): a send ``sendDelay`` after pending
/// changes are added (changes added meanwhile go with it), and a look at the database's change
/// log — one `CKFetchDatabaseChangesOperation` of at most one result from the engine's token —
/// fetching when it moved. The look runs
/// - at once when woken: by a commit of any handle of this process on the same embedded store
///   (``StoreChangeSignal``), or by a notification of the engine's database subscription on a
///   remote container (``SyncEngineNotificationListener``);
/// - otherwise every ``pollInterval`` — the bounded delay for other processes on an embedded
///   store — or every ``notifiedPollInterval`` once a remote container's notifications flow.
///
/// Looks and fetches, and sends, back off independently, as ``SyncEngineBackoff`` says: the
/// scheduled looks and fetches after any failure of a look, a fetch, or a zone's fetch with a
/// retryable error (a fetch that failed for good would otherwise run again at the next look);
/// the scheduled sends after any failure of a send (but a cancellation) or a change's retryable
/// one. A zone a scheduled fetch leaves
/// unfetched without a failure (the delegate's fetch options exclude it, or its fetch failed
/// for good) does not by itself start another fetch: the next one waits for the database to
/// change again.
final class SyncEngineScheduler: Sendable {
    /// How long after pending changes are added the engine sends them.
    static let sendDelay: Duration = .milliseconds(200)
    /// How often the engine looks for changes when nothing wakes it.
    static let pollInterval: Duration = .milliseconds(500)
    /// How often it looks when the server's notifications wake it: a safety net.
    static let notifiedPollInterval: Duration = .seconds(10)

    private struct Tasks {
        var loop: Task<Void, Never>?
        var send: Task<Void, Never>?
        var observation: StoreChangeSignal.Observation?
        var listener: SyncEngineNotificationListener?
        /// The backoff of the scheduled looks and fetches.
        var fetchBackoff = SyncEngineBackoff()
        /// The backoff of the scheduled sends.
        var sendBackoff = SyncEngineBackoff()
        /// The zones the last scheduled fetch left unfetched without a retryable failure.
        var settledZones: [CKRecordZone.ID] = []
    }

    private let tasks = Mutex(Tasks())
    let wakeup = SyncEngineWakeup()

    /// Starts watching `engine`'s pending changes and the database.
    func start(for engine: CKSyncEngine) {
        // CloudKit does not push a change to the device it came from: commits through the
        // engine's own handle (its backend object) do not wake it; its next look sees them.
        let local = Self.localEngine(of: engine.database)
        let own = local.map { ObjectIdentifier($0.writeGeneration) }
        let observation = local?.changeSignal.observe { [wakeup] origin in
            if origin != own { wakeup.signal() }
        }
        let loop = Task { [weak engine, weak self] in
            if let engine { _ = try? await engine.gate.run { try await engine.checkAccount() } }
            while !Task.isCancelled, let interval = self?.nextInterval() {
                await self?.wakeup.wait(upTo: interval)
                guard !Task.isCancelled, let engine, let self else { return }
                await look(engine)
            }
        }
        tasks.withLock {
            $0.loop = loop
            $0.observation = observation
        }
    }

    /// Stops the automatic sync; a fetch or send under way finishes.
    func stop() {
        let stopped = tasks.withLock { tasks in
            defer {
                tasks.observation = nil
                tasks.listener = nil
            }
            return (tasks.loop, tasks.send, tasks.observation, tasks.listener)
        }
        stopped.0?.cancel()
        stopped.1?.cancel()
        stopped.2?.cancel()
        stopped.3?.stop()
        wakeup.signal()
    }

    /// Sends `engine`'s pending changes ``sendDelay`` from now (or when the sends' backoff
    /// ends), unless a send is already due.
    func scheduleSend(for engine: CKSyncEngine) {
        tasks.withLock { tasks in
            guard tasks.send == nil else { return }
            let wait = max(Self.sendDelay, tasks.sendBackoff.remaining(at: .now))
            tasks.send = Task { [weak engine, weak self] in
                try? await Task.sleep(for: wait)
                self?.tasks.withLock { $0.send = nil }
                guard !Task.isCancelled, let engine, let self else { return }
                await send(engine)
            }
        }
    }

    /// The wait before the next look: the poll interval, or the rest of the shorter backoff.
    private func nextInterval() -> Duration {
        tasks.withLock { tasks in
            let interval = tasks.listener?.isListening == true ? Self.notifiedPollInterval : Self.pollInterval
            let now = ContinuousClock.now
            return max(interval, min(tasks.fetchBackoff.remaining(at: now), tasks.sendBackoff.remaining(at: now)))
        }
    }

    /// Fetches when the server has changes the engine has not fetched (besides the settled
    /// zones), unless the fetches back off; then sends what is still pending (changes a failed
    /// send kept), unless the sends back off.
    private func look(_ engine: CKSyncEngine) async {
        if !isBackingOff(sends: false) { await fetchIfChanged(engine) }
        if !isBackingOff(sends: true) { await sendPending(engine) }
    }

    /// Looks at the database's change log, and fetches when it moved or a zone is left to fetch.
    private func fetchIfChanged(_ engine: CKSyncEngine) async {
        switch await engine.serverHasUnfetchedChanges(besides: tasks.withLock { $0.settledZones }) {
        case .failure(let error):
            noteOutcome(error, sends: false)
        case .success(false):
            listenIfRemote(engine)
            noteOutcome(nil, sends: false)
        case .success(true):
            listenIfRemote(engine)
            await fetch(engine)
        }
    }

    /// A scheduled fetch. A failure, of the fetch or a zone's retryable one, starts the fetches'
    /// backoff and leaves no zone settled, so the first look after it fetches again; otherwise
    /// the zones the fetch left unfetched (read inside the gate, so an explicit fetch after it
    /// cannot add one) are settled.
    private func fetch(_ engine: CKSyncEngine) async {
        let failure: CKError?
        var settled: [CKRecordZone.ID] = []
        switch await CKSyncEngine.attempt({ try await engine.performFetch(.init(), reason: .scheduled) }) {
        case .success(let outcome):
            failure = outcome.retryable
            if failure == nil { settled = outcome.unfetched }
        case .failure(let error):
            failure = CKSyncEngine.ckError(error)
        }
        tasks.withLock { $0.settledZones = settled }
        noteOutcome(failure, sends: false)
    }

    /// Sends the pending changes, if any; with none, ends the sends' backoff.
    private func sendPending(_ engine: CKSyncEngine) async {
        if !engine.state.pendingRecordZoneChanges.isEmpty || !engine.state.pendingDatabaseChanges.isEmpty {
            await send(engine)
        } else {
            noteOutcome(nil, sends: true)
        }
    }

    /// A scheduled send, noting its outcome for the sends' backoff.
    private func send(_ engine: CKSyncEngine) async {
        switch await CKSyncEngine.attempt({ try await engine.performSend(.init(), reason: .scheduled) }) {
        case .success(let retryable): noteOutcome(retryable, sends: true)
        case .failure(let error): noteOutcome(CKSyncEngine.ckError(error), sends: true)
        }
    }

    /// Ends the sends' (or the looks' and fetches') backoff after an explicit `sendChanges`
    /// (`fetchChanges`) that succeeded: the failure it waited out is over, and a change added
    /// next goes after ``sendDelay``, not after the rest of a wait of up to a minute.
    func explicitCallSucceeded(sending: Bool) {
        noteOutcome(nil, sends: sending)
    }

    /// Whether the scheduled sends (or looks and fetches) wait for their backoff to end.
    func isBackingOff(sends: Bool) -> Bool {
        tasks.withLock { (sends ? $0.sendBackoff : $0.fetchBackoff).remaining(at: .now) } > .zero
    }

    /// Starts or ends the sends' (or the looks' and fetches') backoff after a scheduled send
    /// (look or fetch) that failed with `error` (`nil`: none). Any failure but a cancellation
    /// starts it: for a send, a change's retryable failure, or the send's own failure,
    /// retryable or not, which leaves its changes pending.
    private func noteOutcome(_ error: CKError?, sends: Bool) {
        let backoff: WritableKeyPath<Tasks, SyncEngineBackoff> = sends ? \.sendBackoff : \.fetchBackoff
        tasks.withLock { tasks in
            if let error, error.code != .operationCancelled {
                tasks[keyPath: backoff].failed(with: error, at: .now)
            } else if error == nil {
                tasks[keyPath: backoff].succeeded()
            }
        }
    }

    /// Once the database answered a look, starts listening to a remote container's
    /// notifications (decision 0017.7); a container with none is polled.
    private func listenIfRemote(_ engine: CKSyncEngine) {
        let listener = tasks.withLock { tasks -> SyncEngineNotificationListener? in
            guard tasks.listener == nil, tasks.observation == nil, !(tasks.loop?.isCancelled ?? true) else {
                return nil
            }
            let listener = SyncEngineNotificationListener(wakeup: wakeup)
            tasks.listener = listener
            return listener
        }
        listener?.start(for: engine)
    }

    /// The engine of the embedded store under `database`, if it is embedded.
    private static func localEngine(of database: CKDatabase) -> Engine? {
        guard database.container.databaseServiceFactory == nil, case .success(let engine) = database.container.engine
        else { return nil }
        return engine
    }
}

extension CKSyncEngine {
    /// Whether the database changed since the engine's token, or a zone other than `settled`
    /// is left to fetch; the look's error when it failed.
    func serverHasUnfetchedChanges(besides settled: [CKRecordZone.ID]) async -> Result<Bool, CKError> {
        if state.zoneIDsWithUnfetchedServerChanges.contains(where: { !settled.contains($0) }) { return .success(true) }
        let token = state.databaseToken
        switch await Self.attempt({ try await database.databaseChanges(since: token, resultsLimit: 1) }) {
        case .success(let batch): return .success(!batch.modifications.isEmpty || !batch.deletions.isEmpty)
        case .failure(let error as CKError) where error.code == .changeTokenExpired: return .success(true)
        case .failure(let error): return .failure(Self.ckError(error))
        }
    }
}
