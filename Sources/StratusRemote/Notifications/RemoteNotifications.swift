public import Stratus

/// The notifications of a remote container's subscriptions, as they are committed on the
/// server (decision 0016.7): `CKContainer.notifications`.
///
/// ```swift
/// for try await notification in container.notifications {
///     if let zone = notification as? CKRecordZoneNotification { await sync(zone.recordZoneID) }
/// }
/// ```
///
/// Each element is the `CKQueryNotification`, `CKRecordZoneNotification` or
/// `CKDatabaseNotification` that `CKNotification(fromRemoteNotificationDictionary:)` makes of
/// the push payload CloudKit would send. Delivery is at least once and in commit order: an
/// element counts as received when the next one is asked for, so one being handled when the
/// process ends comes again to the container's next sequence; within one sequence none repeats.
/// When the server dropped notifications before they were received (its retention), the
/// sequence yields a `CKDatabaseNotification` of the private database with no
/// `subscriptionID`: fetch every database's changes with your change tokens.
///
/// The sequence reconnects by itself, with backoff up to 5 s, after a broken connection, an
/// unreachable server or a server restart; it ends when its task is cancelled, and throws only
/// when the server refuses the credentials (`notAuthenticated`, `permissionFailure`,
/// `badContainer`). A container that is not remote has no notifications: its sequence throws
/// `internalError` saying so.
///
/// Sequences of one container share its courier token, made by the first poll and kept for the
/// container's life: run one consumer per container object (a loop, or
/// `CKContainer.setNotificationHandler(_:failureHandler:)`).
public struct RemoteNotifications: AsyncSequence, Sendable {
    /// A `CKQueryNotification`, `CKRecordZoneNotification` or `CKDatabaseNotification`.
    public typealias Element = CKNotification
    /// What ends the sequence with an error: refused credentials, or a container that is not
    /// remote.
    public typealias Failure = CKError

    let container: CKContainer

    /// A new sequence of `container`'s notifications, from where the container's courier token
    /// was last acknowledged.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            feed: RemoteNotificationFeed(
                container: container, courier: RemoteNotificationRegistry.shared.courier(for: container)))
    }

    /// Iterates the notifications, long-polling the server when none is waiting.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// A `CKQueryNotification`, `CKRecordZoneNotification` or `CKDatabaseNotification`.
        public typealias Element = CKNotification
        /// What ends the sequence with an error.
        public typealias Failure = CKError

        let feed: RemoteNotificationFeed

        /// The next notification, waiting for one; `nil` once the task is cancelled.
        public mutating func next() async throws(CKError) -> CKNotification? {
            try await feed.next()
        }

        /// The next notification, waiting for one; `nil` once the task is cancelled.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(CKError) -> CKNotification? {
            try await feed.next()
        }
    }
}
