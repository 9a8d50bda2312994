import Synchronization

/// A sync engine's ear for a remote container's server (decision 0017.7): as Apple's engine
/// does, it uses the database subscription named by `Configuration.subscriptionID`, or else an
/// existing `CKDatabaseSubscription` of the database, or else creates one
/// (``defaultSubscriptionID``); then it wakes the automatic sync for each notification of that
/// subscription, and for a reset notification (notifications dropped unread). Embedded
/// containers keep no notification log: it does nothing there, and the engine polls.
final class SyncEngineNotificationListener: Sendable {
    /// The ID of the database subscription the engine creates when it finds none.
    static let defaultSubscriptionID: CKSubscription.ID = "StratusSyncEngine"
    /// How long it waits before trying again to set the subscription up.
    static let retryDelay: Duration = .seconds(5)

    private let wakeup: SyncEngineWakeup
    private let state = Mutex<(task: Task<Void, Never>?, listening: Bool)>((nil, false))

    init(wakeup: SyncEngineWakeup) {
        self.wakeup = wakeup
    }

    /// Whether notifications are flowing: the engine may poll slowly.
    var isListening: Bool { state.withLock { $0.listening } }

    /// Starts listening to `engine`'s database, if its container has a server.
    func start(for engine: CKSyncEngine) {
        let database = engine.database
        let wanted = engine.configuredSubscriptionID
        let task = Task { [weak self] in
            let container = database.container
            let found = await SyncEngineOffPool.run {
                (try? database.service())?.subscriptionNotifications(of: container)
            }
            guard let notifications = found else { return }
            while !Task.isCancelled {
                if let subscriptionID = try? await Self.subscription(of: database, wanted: wanted) {
                    await self?.listen(to: notifications, subscriptionID: subscriptionID, scope: database.databaseScope)
                    return
                }
                try? await Task.sleep(for: Self.retryDelay)
            }
        }
        state.withLock { $0.task = task }
    }

    /// Stops listening.
    func stop() {
        state.withLock { $0.task }?.cancel()
    }

    /// Wakes the engine for each notification of `subscriptionID` in `scope`, and for resets.
    private func listen(
        to notifications: AsyncStream<CKNotification>, subscriptionID: CKSubscription.ID, scope: CKDatabase.Scope
    ) async {
        state.withLock { $0.listening = true }
        // Anything committed before the first notification was read is looked for now.
        wakeup.signal()
        for await notification in notifications {
            let database = (notification as? CKDatabaseNotification)?.databaseScope
            if notification.subscriptionID == nil
                || (notification.subscriptionID == subscriptionID && database == scope)
            {
                wakeup.signal()
            }
        }
        // The server refused the credentials, or the task was cancelled: poll again.
        state.withLock { $0.listening = false }
    }

    /// The ID of the database subscription to listen to: `wanted`, saved when missing; or an
    /// existing database subscription's; or a new one's.
    private static func subscription(
        of database: CKDatabase, wanted: CKSubscription.ID?
    ) async throws -> CKSubscription.ID {
        let existing = try await database.allSubscriptions()
        if let wanted, existing.contains(where: { $0.subscriptionID == wanted }) { return wanted }
        if wanted == nil, let found = existing.first(where: { $0 is CKDatabaseSubscription }) {
            return found.subscriptionID
        }
        let subscription = CKDatabaseSubscription(subscriptionID: wanted ?? defaultSubscriptionID)
        let info = CKSubscription.NotificationInfo()
        info.shouldSendContentAvailable = true
        subscription.notificationInfo = info
        return try await database.save(subscription).subscriptionID
    }
}
