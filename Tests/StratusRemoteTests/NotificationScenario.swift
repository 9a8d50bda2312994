import Foundation
import Stratus
import StratusRemote

/// What the notification tests write through a remote container: a zone of notes, the
/// subscriptions that watch it, and notes saved, changed and deleted one commit at a time.
struct NotificationScenario {
    static let notes = CKRecordZone.ID(zoneName: "Notes")
    let database: CKDatabase

    init(_ container: CKContainer) {
        database = container.privateCloudDatabase
    }

    /// A query subscription on important notes (every reason, `title` and `priority` wanted), a
    /// zone subscription on Notes and a database subscription, after the zone.
    func subscribeToEverything() async throws {
        _ = try await database.save(CKRecordZone(zoneID: Self.notes))
        let important = CKQuerySubscription(
            recordType: "Note", predicate: NSPredicate(format: "priority > 5"), subscriptionID: "important",
            options: [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion])
        important.zoneID = Self.notes
        let info = CKSubscription.NotificationInfo()
        info.alertBody = "Something important"
        info.desiredKeys = ["title", "priority"]
        important.notificationInfo = info
        _ = try await database.save(important)
        _ = try await database.save(CKRecordZoneSubscription(zoneID: Self.notes, subscriptionID: "notes"))
        _ = try await database.save(CKDatabaseSubscription(subscriptionID: "everything"))
    }

    /// A query subscription firing once for each note created, after the zone.
    func subscribeToNewNotes() async throws {
        _ = try await database.save(CKRecordZone(zoneID: Self.notes))
        let created = CKQuerySubscription(
            recordType: "Note", predicate: NSPredicate(value: true), subscriptionID: "new-notes",
            options: [.firesOnRecordCreation])
        _ = try await database.save(created)
    }

    /// Saves a new note `name` with `priority`, in one commit.
    func save(_ name: String, priority: Int64 = 1) async throws {
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: Self.notes))
        record["title"] = name
        record["priority"] = priority
        _ = try await database.save(record)
    }

    /// Changes note `name`'s priority, in one commit.
    func change(_ name: String, priority: Int64) async throws {
        let record = try await database.record(for: CKRecord.ID(recordName: name, zoneID: Self.notes))
        record["priority"] = priority
        _ = try await database.save(record)
    }

    /// Deletes note `name`, in one commit.
    func delete(_ name: String) async throws {
        _ = try await database.deleteRecord(withID: CKRecord.ID(recordName: name, zoneID: Self.notes))
    }
}
