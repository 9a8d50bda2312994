import Foundation
import Stratus
import StratusRemote
import Synchronization

/// A consumer of a notification sequence on a task of its own, keeping what it received in
/// order; ``stop()`` cancels it as an app ending its loop would.
final class NotificationCollector: Sendable {
    private struct State {
        var received: [CKNotification] = []
        var failure: CKError?
        var ended = false
    }

    private let state = Mutex(State())
    private let task = Mutex<Task<Void, Never>?>(nil)

    private init() {}

    /// How long a test waits for what it expects before failing on what is missing: generous,
    /// as the whole suite shares two cores with other builds; a passing wait ends at once.
    static let patience = 300.0

    /// A collector consuming `notifications` from now on.
    static func start(_ notifications: RemoteNotifications) -> NotificationCollector {
        let collector = NotificationCollector()
        let task = Task { await collector.consume(notifications) }
        collector.task.withLock { $0 = task }
        return collector
    }

    private func consume(_ notifications: RemoteNotifications) async {
        do {
            for try await notification in notifications {
                state.withLock { $0.received.append(notification) }
            }
        } catch {
            state.withLock { $0.failure = error }
        }
        state.withLock { $0.ended = true }
    }

    /// What was received so far.
    var received: [CKNotification] { state.withLock { $0.received } }
    /// The error the sequence ended with, if it did.
    var failure: CKError? { state.withLock { $0.failure } }
    /// Whether the sequence ended (cancelled or failed).
    var ended: Bool { state.withLock { $0.ended } }

    /// What was received once `count` notifications were, or the sequence ended, or `seconds`
    /// passed (a generous bound: the test then fails on what is missing).
    func wait(for count: Int, within seconds: Double = NotificationCollector.patience) async -> [CKNotification] {
        await wait(within: seconds) { $0.count >= count }
    }

    /// What was received once a query notification of record `name` was.
    func wait(forRecord name: String, within seconds: Double = NotificationCollector.patience) async -> [CKNotification]
    {
        await wait(within: seconds) { recordNames($0).contains(name) }
    }

    /// What was received once `done` holds of it, or the sequence ended, or `seconds` passed.
    func wait(within seconds: Double, until done: ([CKNotification]) -> Bool) async -> [CKNotification] {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !done(received) && !ended && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        return received
    }

    /// Cancels the consuming task and waits for it to end; what was received.
    @discardableResult
    func stop() async -> [CKNotification] {
        let running = task.withLock { $0 }
        running?.cancel()
        await running?.value
        return received
    }
}

/// A notification as one line: its kind, subscription, record or zone, reason, scope and
/// desired fields — what the tests compare.
func describe(_ notification: CKNotification) -> String {
    let sid = notification.subscriptionID ?? "-"
    switch notification {
    case let query as CKQueryNotification:
        let reasons: [CKQueryNotification.Reason: String] = [
            .recordCreated: "created", .recordUpdated: "updated", .recordDeleted: "deleted",
        ]
        let fields = (query.recordFields ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let zone = query.recordID.map { "\($0.zoneID.zoneName)/\($0.zoneID.ownerName)" } ?? "-"
        return "query \(sid) \(query.recordID?.recordName ?? "-") \(reasons[query.queryNotificationReason] ?? "?") "
            + "\(zone) \(query.databaseScope) [\(fields.joined(separator: " "))]"
    case let zone as CKRecordZoneNotification:
        let id = zone.recordZoneID.map { "\($0.zoneName)/\($0.ownerName)" } ?? "-"
        return "zone \(sid) \(id) \(zone.databaseScope)"
    case let database as CKDatabaseNotification:
        return "database \(sid) \(database.databaseScope)"
    default:
        return "other \(sid)"
    }
}

/// The record names of the query notifications among `notifications`, in order.
func recordNames(_ notifications: [CKNotification]) -> [String] {
    notifications.compactMap { ($0 as? CKQueryNotification)?.recordID?.recordName }
}
