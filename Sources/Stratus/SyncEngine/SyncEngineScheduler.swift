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
/// After a retryable failure — of a look, a send, a fetch, or one zone's fetch — the scheduled
/// sends and fetches wait as ``SyncEngineBackoff`` says. A zone a scheduled fetch leaves
/// unfetched otherwise (the delegate's fetch options exclude it, or its fetch failed for good)
/// does not by itself start another fetch: the next one waits for the database to change again.
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
        var backoff = SyncEngineBackoff()
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

    /// Sends `engine`'s pending changes ``sendDelay`` from now (or when a backoff ends), unless
    /// a send is already due.
    func scheduleSend(for engine: CKSyncEngine) {
        tasks.withLock { tasks in
            guard tasks.send == nil else { return }
            let wait = max(Self.sendDelay, tasks.backoff.remaining(at: .now))
            tasks.send = Task { [weak engine, weak self] in
                try? await Task.sleep(for: wait)
                self?.tasks.withLock { $0.send = nil }
                guard !Task.isCancelled, let engine, let self else { return }
                await send(engine)
            }
        }
    }

    /// The wait before the next look: the poll interval, or the rest of a backoff.
    private func nextInterval() -> Duration {
        tasks.withLock { tasks in
            let interval = tasks.listener?.isListening == true ? Self.notifiedPollInterval : Self.pollInterval
            return max(interval, tasks.backoff.remaining(at: .now))
        }
    }

    /// Fetches when the server has changes the engine has not fetched (besides the settled
    /// zones), and sends what is still pending (changes a failed send kept) — unless a backoff
    /// is running, or starts with a retryable failure of the look or the fetch.
    private func look(_ engine: CKSyncEngine) async {
        guard !isBackingOff else { return }
        switch await engine.serverHasUnfetchedChanges(besides: tasks.withLock { $0.settledZones }) {
        case .failure(let error):
            noteOutcome(error)
            if isBackingOff { return }
        case .success(false):
            listenIfRemote(engine)
        case .success(true):
            listenIfRemote(engine)
            await fetch(engine)
            if isBackingOff { return }
        }
        if !engine.state.pendingRecordZoneChanges.isEmpty || !engine.state.pendingDatabaseChanges.isEmpty {
            await send(engine)
        } else {
            noteOutcome(nil)
        }
    }

    /// A scheduled fetch. A retryable failure, of the fetch or of a zone, starts a backoff and
    /// leaves no zone settled, so the next look after it fetches again; otherwise the zones
    /// still unfetched are settled.
    private func fetch(_ engine: CKSyncEngine) async {
        let failure: CKError?
        switch await CKSyncEngine.attempt({ try await engine.performFetch(.init(), reason: .scheduled) }) {
        case .success(let retryable): failure = retryable
        case .failure(let error): failure = CKSyncEngine.ckError(error)
        }
        let unfetched = engine.state.zoneIDsWithUnfetchedServerChanges
        tasks.withLock { $0.settledZones = failure == nil ? unfetched : [] }
        if let failure { noteOutcome(failure) }
    }

    /// A scheduled send, noting its outcome for the backoff.
    private func send(_ engine: CKSyncEngine) async {
        switch await CKSyncEngine.attempt({ try await engine.performSend(.init(), reason: .scheduled) }) {
        case .success(let retryable): noteOutcome(retryable)
        case .failure(let error): noteOutcome(CKSyncEngine.ckError(error))
        }
    }

    /// Whether scheduled syncs wait for a backoff to end.
    private var isBackingOff: Bool { tasks.withLock { $0.backoff.remaining(at: .now) } > .zero }

    /// Starts or ends a backoff after a scheduled sync that failed with `error` (`nil`: none).
    private func noteOutcome(_ error: CKError?) {
        tasks.withLock { tasks in
            if let error, CKSyncEngine.retryableCodes.contains(error.code), error.code != .operationCancelled {
                tasks.backoff.failed(with: error, at: .now)
            } else if error == nil {
                tasks.backoff.succeeded()
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
