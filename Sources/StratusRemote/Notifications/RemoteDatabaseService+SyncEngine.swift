import Stratus

extension RemoteDatabaseService {
    /// The notifications of the user's subscriptions, for a sync engine (decision 0017.7): a
    /// sequence of its own, with a courier token of its own, so the engine never consumes — or
    /// acknowledges — the notifications the app reads from `container.notifications`.
    func subscriptionNotifications(of container: CKContainer) -> AsyncStream<CKNotification>? {
        let feed = RemoteNotificationFeed(container: container, courier: RemoteCourier())
        return AsyncStream { continuation in
            let task = Task {
                while let notification = try? await feed.next() {
                    continuation.yield(notification)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
