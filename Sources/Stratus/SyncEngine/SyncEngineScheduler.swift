import Synchronization

/// A sync engine's automatic sync: a send ``sendDelay`` after pending changes are added
/// (changes added meanwhile go with it), and a look at the database's change log every
/// ``pollInterval``, fetching when it moved. The look is one `CKFetchDatabaseChangesOperation`
/// of at most one result from the engine's token, so any writer of the store is seen — another
/// handle, another process, another sync engine — on every backend (decision 0017).
final class SyncEngineScheduler: Sendable {
    /// How long after pending changes are added the engine sends them.
    static let sendDelay: Duration = .milliseconds(200)
    /// How often the engine looks for changes on the server.
    static let pollInterval: Duration = .milliseconds(500)

    private struct Tasks {
        var poll: Task<Void, Never>?
        var send: Task<Void, Never>?
    }

    private let tasks = Mutex(Tasks())

    /// Starts watching `engine`'s pending changes and the database.
    func start(for engine: CKSyncEngine) {
        let poll = Task { [weak engine] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.pollInterval)
                guard !Task.isCancelled, let engine else { return }
                await Self.poll(engine)
            }
        }
        tasks.withLock { $0.poll = poll }
    }

    /// Stops the automatic sync; a fetch or send under way finishes.
    func stop() {
        tasks.withLock { tasks in
            tasks.poll?.cancel()
            tasks.send?.cancel()
        }
    }

    /// Sends `engine`'s pending changes ``sendDelay`` from now, unless a send is already due.
    func scheduleSend(for engine: CKSyncEngine) {
        tasks.withLock { tasks in
            guard tasks.send == nil else { return }
            tasks.send = Task { [weak engine, weak self] in
                try? await Task.sleep(for: Self.sendDelay)
                self?.tasks.withLock { $0.send = nil }
                guard !Task.isCancelled, let engine else { return }
                try? await engine.performSend(.init(), reason: .scheduled)
            }
        }
    }

    /// Fetches when the server has changes the engine has not fetched, and sends what is still
    /// pending (changes a failed send kept).
    private static func poll(_ engine: CKSyncEngine) async {
        if await engine.serverHasUnfetchedChanges() {
            try? await engine.performFetch(.init(), reason: .scheduled)
        }
        if !engine.state.pendingRecordZoneChanges.isEmpty || !engine.state.pendingDatabaseChanges.isEmpty {
            try? await engine.performSend(.init(), reason: .scheduled)
        }
    }
}

extension CKSyncEngine {
    /// Whether the database changed since the engine's token, or a zone is left to fetch.
    func serverHasUnfetchedChanges() async -> Bool {
        if !state.zoneIDsWithUnfetchedServerChanges.isEmpty { return true }
        let token = state.databaseToken
        switch await Self.attempt({ try await database.databaseChanges(since: token, resultsLimit: 1) }) {
        case .success(let batch): return !batch.modifications.isEmpty || !batch.deletions.isEmpty
        case .failure(let error): return (error as? CKError)?.code == .changeTokenExpired
        }
    }
}
