import Synchronization

/// Syncs an app's local records with a database: it fetches what changed on the server and sends
/// the changes the app marks as pending, keeping the change tokens and the pending changes in a
/// state the app persists.
///
/// The engine is a layer over the database's public operations (`CKFetchDatabaseChangesOperation`,
/// `CKFetchRecordZoneChangesOperation`, `CKModifyRecordZonesOperation`,
/// `CKModifyRecordsOperation`); `Docs/SyncEngine.md` says how it maps onto them and how it
/// differs from Apple's.
public final class CKSyncEngine: Sendable {
    /// The database the engine syncs with.
    public let database: CKDatabase
    /// The engine's state: pending changes, change tokens.
    public let state: CKSyncEngine.State

    private let delegateBox: Mutex<WeakDelegate>
    let gate = SyncEngineGate()
    let cancellation = Atomic<Int>(0)
    /// Whether the account was compared with the state's user (``checkAccount()``).
    let accountChecked = Atomic<Bool>(false)
    /// Whether a state update for changes the app made to the state is on its way.
    private let stateUpdateDue = Atomic<Bool>(false)
    let scheduler: Mutex<SyncEngineScheduler?> = Mutex(nil)
    /// The database subscription the configuration names, if any.
    let configuredSubscriptionID: CKSubscription.ID?

    /// Creates a sync engine with the specified configuration. With `automaticallySync`, it
    /// starts sending and fetching by itself.
    public init(_ configuration: CKSyncEngine.Configuration) {
        database = configuration.database
        state = State(configuration.stateSerialization)
        configuredSubscriptionID = configuration.subscriptionID
        delegateBox = Mutex(WeakDelegate(value: configuration.delegate))
        let scheduler = configuration.automaticallySync ? SyncEngineScheduler() : nil
        self.scheduler.withLock { $0 = scheduler }
        state.observePendingChanges { [weak self] added in self?.pendingChangesChanged(added: added) }
        scheduler?.start(for: self)
    }

    /// Posts the state with the app's changes for it to persist and, when changes were `added`,
    /// with automatic sync schedules a send.
    private func pendingChangesChanged(added: Bool) {
        scheduleStateUpdate()
        if added { scheduler.withLock { $0 }?.scheduleSend(for: self) }
    }

    /// Posts the state through the gate, after the events of the fetches and sends before it,
    /// unless an update not yet posted is on its way: it reads the state when it is posted, so
    /// one event carries changes made in a row (Apple: "This event also happens when you change
    /// the state yourself").
    private func scheduleStateUpdate() {
        if stateUpdateDue.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged {
            Task { [weak self] in
                guard let self else { return }
                _ = try? await gate.run {
                    self.stateUpdateDue.store(false, ordering: .sequentiallyConsistent)
                    await self.postStateUpdate()
                }
            }
        }
    }

    deinit {
        scheduler.withLock { $0 }?.stop()
    }

    /// Fetches the changes on the server now, and returns after the delegate has handled every
    /// event of the fetch.
    public func fetchChanges(_ options: CKSyncEngine.FetchChangesOptions = .init()) async throws {
        let outcome = try await performFetch(options, reason: .manual)
        if outcome.retryable == nil { scheduler.withLock { $0 }?.explicitCallSucceeded(sending: false) }
    }

    /// Sends the pending changes in the options' scope now, and returns after the delegate has
    /// handled every event of the send.
    public func sendChanges(_ options: CKSyncEngine.SendChangesOptions = .init()) async throws {
        if try await performSend(options, reason: .manual) == nil {
            scheduler.withLock { $0 }?.explicitCallSucceeded(sending: true)
        }
    }

    /// Cancels the fetches and sends under way or waiting; they fail with `operationCancelled`
    /// at their next step. Returns when none runs any more.
    public func cancelOperations() async {
        cancellation.add(1, ordering: .sequentiallyConsistent)
        _ = try? await gate.run {}
    }

    // MARK: Internals shared by fetch and send

    var delegate: (any CKSyncEngineDelegate)? { delegateBox.withLock { $0.value } }

    /// Gives `event` to the delegate.
    func post(_ event: CKSyncEngine.Event) async {
        await delegate?.handleEvent(event, syncEngine: self)
    }

    /// Posts the current state for the app to persist.
    func postStateUpdate() async {
        await post(.stateUpdate(.init(stateSerialization: state.serialization)))
    }

    /// The current cancellation generation, taken when a fetch or send starts.
    var cancellationGeneration: Int { cancellation.load(ordering: .sequentiallyConsistent) }

    /// Throws `operationCancelled` when ``cancelOperations()`` was called since `generation`.
    func checkCancelled(since generation: Int) throws {
        if cancellationGeneration != generation || Task.isCancelled {
            throw CKError(.operationCancelled)
        }
    }

    /// `body`'s result or error, as a value (typed-throws `do`/`catch` trips Swift 6.3.1).
    static func attempt<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    private struct WeakDelegate {
        weak var value: (any CKSyncEngineDelegate)?
    }
}
