import Foundation
import Stratus
import Testing

/// `notificationsMaxPerUser` and `notificationsRetentionSeconds` (decision 0014.2) through a
/// real `stratusd`: with the defaults, every entry below would be kept.
@Suite("stratusd: notification log settings")
struct NotificationLogSettingsHTTPTests {
    /// A query subscription on important notes: one entry per note saved.
    static var important: CKSubscription {
        CKQuerySubscription(
            recordType: "Note", predicate: NSPredicate(format: "priority > 5"), subscriptionID: "important",
            options: [.firesOnRecordCreation, .firesOnRecordUpdate])
    }

    @Test func maxPerUserKeepsOnlyTheNewestEntries() async throws {
        let ws = try WebServicesFixture(environment: ["STRATUS_NOTIFICATIONS_MAX_PER_USER": "5"])
        try ws.subscribe(ws.aliceSession, [Self.important])
        let courier = try await ws.courierPath(as: .alice)
        try await ws.saveNotes(["a", "b", "c"], priority: 9)
        try await ws.saveNotes(["d", "e", "f", "g", "h"], priority: 9)
        let answer = try await ws.poll(courier)
        #expect(answer.positions == [4, 5, 6, 7, 8], "the newest 5 of 8: \(answer.json)")
        #expect(answer.json["resetRequired"] as? Bool == true, "entries were dropped unacknowledged")
    }

    @Test func retentionDropsEntriesOlderThanIt() async throws {
        let ws = try WebServicesFixture(environment: ["STRATUS_NOTIFICATIONS_RETENTION_SECONDS": "2"])
        try ws.subscribe(ws.aliceSession, [Self.important])
        let courier = try await ws.courierPath(as: .alice)
        try await ws.saveNotes(["old"], priority: 9)
        try await Task.sleep(for: .seconds(3))
        try await ws.saveNotes(["new"], priority: 9)
        // The first poll of the log runs retention: "old" is 3 s old, "new" is not.
        let answer = try await ws.poll(courier)
        #expect(answer.positions == [2], "\(answer.json)")
        #expect(answer.json["resetRequired"] as? Bool == true, "\(answer.json)")
    }
}
