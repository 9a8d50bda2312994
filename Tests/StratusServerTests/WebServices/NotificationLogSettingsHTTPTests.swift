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

    /// A token created after entries were dropped starts at the oldest entry kept: its first
    /// poll gets every kept entry and no `resetRequired` (it lost nothing).
    @Test func aTokenCreatedAfterDropsIsNotToldToReset() async throws {
        let ws = try WebServicesFixture(environment: ["STRATUS_NOTIFICATIONS_MAX_PER_USER": "5"])
        try ws.subscribe(ws.aliceSession, [Self.important])
        try await ws.saveNotes(["a", "b", "c", "d", "e", "f", "g", "h"], priority: 9)
        let courier = try await ws.courierPath(as: .alice)
        let answer = try await ws.poll(courier)
        #expect(answer.positions == [4, 5, 6, 7, 8], "the kept entries: \(answer.json)")
        #expect(answer.json["resetRequired"] as? Bool == false, "\(answer.json)")
    }

    /// With a 10 s retention, an entry 11 s old is dropped by the first poll of the log; a newer
    /// one is kept when the poll came within the retention of its save (on a machine so loaded
    /// that it did not, only the drop is checked).
    @Test func retentionDropsEntriesOlderThanIt() async throws {
        let ws = try WebServicesFixture(environment: ["STRATUS_NOTIFICATIONS_RETENTION_SECONDS": "10"])
        try ws.subscribe(ws.aliceSession, [Self.important])
        let courier = try await ws.courierPath(as: .alice)
        try await ws.saveNotes(["old"], priority: 9)
        try await Task.sleep(for: .seconds(11))
        let saved = Date()
        try await ws.saveNotes(["new"], priority: 9)
        let answer = try await ws.poll(courier)
        #expect(!answer.positions.contains(1), "the 11 s old entry is dropped: \(answer.json)")
        #expect(answer.json["resetRequired"] as? Bool == true, "\(answer.json)")
        if Date().timeIntervalSince(saved) < 9 {
            #expect(answer.positions == [2], "the new entry is kept: \(answer.json)")
        }
    }
}
