public import Stratus

extension CKContainer {
    /// The notifications of this container's subscriptions, delivered by its server (decision
    /// 0016.7): see ``RemoteNotifications``.
    ///
    /// ```swift
    /// for try await notification in container.notifications {
    ///     handle(notification)
    /// }
    /// ```
    ///
    /// For a container that is not remote the sequence throws `CKError.internalError`:
    /// notifications need a server.
    public var notifications: RemoteNotifications { RemoteNotifications(container: self) }

    /// Calls `handler` with each of the container's notifications, as an app delegate's
    /// `didReceiveRemoteNotification` is called: one at a time, in order, on a task of the
    /// container's own (not the main actor). Setting another handler replaces this one; `nil`
    /// stops delivery. The container is kept alive while a handler is set.
    ///
    /// Built on ``notifications``, so delivery is the same: at least once, in order, reconnecting
    /// by itself.
    ///
    /// - Parameters:
    ///   - handler: called with each notification; `nil` to stop.
    ///   - failureHandler: called once if delivery ends with an error (refused credentials, or a
    ///     container that is not remote); the handler is then called no more.
    public func setNotificationHandler(
        _ handler: (@Sendable (CKNotification) -> Void)?, failureHandler: (@Sendable (CKError) -> Void)? = nil
    ) {
        guard let handler else {
            RemoteNotificationRegistry.shared.replaceHandler(of: self, with: nil)
            return
        }
        let notifications = self.notifications
        let task = Task {
            do throws(CKError) {
                for try await notification in notifications {
                    handler(notification)
                }
            } catch {
                failureHandler?(error)
            }
        }
        RemoteNotificationRegistry.shared.replaceHandler(of: self, with: task)
    }
}
