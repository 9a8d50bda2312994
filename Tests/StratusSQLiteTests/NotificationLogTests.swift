import Foundation
import StratusBackend
import StratusConformance
import StratusTestSupport
import Testing

@testable import Stratus

/// Subscriptions firing in the committing transaction into a user's notification log
/// (decision 0014.1–3), on every backend.
@Suite struct NotificationLogTests {
    typealias Backend = NamespaceTests.Backend

    static let alice = Namespace(container: "iCloud.com.example.app", environment: .development, owner: "_alice")
    static let bob = Namespace(container: "iCloud.com.example.app", environment: .development, owner: "_bob")
    static let zone = CKRecordZone(zoneName: "Notes")

    func withEngine(_ backend: Backend, _ body: (Engine) async throws -> Void) async throws {
        let storage = try await backend.makeStorage()
        defer { try? storage.destroy() }
        try await body(try Engine(backend: try storage.open()))
    }

    func note(_ name: String, title: String, priority: Int = 1) -> CKRecord {
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: Self.zone.zoneID))
        record["title"] = title
        record["priority"] = priority
        return record
    }

    func modify(_ database: DatabaseContext, save: [CKRecord] = [], delete: [String] = []) throws -> ModifyOutcome {
        let outcome = try database.modifyRecords(
            ModifyRequest(
                records: save, deletes: delete.map { CKRecord.ID(recordName: $0, zoneID: Self.zone.zoneID) },
                policy: .allKeys, atomic: false, clientChangeTokenData: nil))
        for result in outcome.saveResults { _ = try result.1.get() }
        for result in outcome.deleteResults { _ = try result.1.get() }
        return outcome
    }

    func subscribe(_ database: DatabaseContext, _ subscriptions: [CKSubscription]) throws {
        let outcome = try database.modifySubscriptions(saving: subscriptions, deleting: [])
        for result in outcome.saved { _ = try result.1.get() }
    }

    /// A query subscription on priority > 5 that fires on every change, with an alert and one
    /// desired key.
    func importantNotes(
        options: CKQuerySubscription.Options = [
            .firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion,
        ]
    ) -> CKQuerySubscription {
        let subscription = CKQuerySubscription(
            recordType: "Note", predicate: NSPredicate(format: "priority > 5"), subscriptionID: "important",
            options: options)
        let info = CKSubscription.NotificationInfo()
        info.alertBody = "An important note"
        info.desiredKeys = ["title"]
        info.shouldSendContentAvailable = true
        subscription.notificationInfo = info
        return subscription
    }

    @Test(arguments: Backend.allCases)
    func eachKindFiresPerCommitAndHonoursFiresOn(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let database = try engine.database(namespace: Self.alice, scope: .private)
            _ = try database.modifyZones(saving: [Self.zone], deleting: [])
            try subscribe(
                database,
                [
                    importantNotes(),
                    CKRecordZoneSubscription(zoneID: Self.zone.zoneID, subscriptionID: "zone"),
                    CKDatabaseSubscription(subscriptionID: "database"),
                ])
            let log = try engine.notificationLog(namespace: Self.alice)
            // Commit 1: one matching and one non-matching new record.
            let first = try modify(
                database, save: [note("a", title: "A", priority: 9), note("b", title: "B", priority: 1)])
            #expect(first.notifiedLogs == [log.number])
            // Commit 2: b now matches (update), a deleted (matched before).
            _ = try modify(database, save: [note("b", title: "B2", priority: 7)], delete: ["a"])
            // Commit 3: b no longer matches: no query entry, zone and database still fire.
            _ = try modify(database, save: [note("b", title: "B3", priority: 2)])
            let (entries, head) = try log.entries(after: 0, limit: 100)
            #expect(entries.map(\.position) == Array(1...entries.count).map(Int64.init), "gap-free")
            #expect(head.next == Int64(entries.count) + 1)
            let summary = entries.map { "\($0.subscriptionID):\($0.recordName ?? "-"):\($0.reason)" }
            #expect(
                summary == [
                    "database:-:0", "important:a:1", "zone:-:0",
                    "database:-:0", "important:b:2", "important:a:3", "zone:-:0",
                    "database:-:0", "zone:-:0",
                ], "\(summary)")
            let created = try #require(entries.first { $0.recordName == "a" && $0.reason == 1 })
            #expect(created.recordFields == ["title": .string("A")])
            #expect(created.zoneName == "Notes")
        }
    }

    /// 40 query subscriptions with 60 KB of alert each, and a commit of 10 records they all
    /// match: 400 entries, 24 MB. The log takes the newest that fit 4 MiB; the others take
    /// their positions unwritten and go with the entries before them, so a client behind them
    /// is told entries were dropped.
    @Test(arguments: Backend.allCases)
    func aCommitWritesAtMostFourMebibytesToALog(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let database = try engine.database(namespace: Self.alice, scope: .private)
            _ = try database.modifyZones(saving: [Self.zone], deleting: [])
            try subscribe(database, largeSubscriptions(40))
            let log = try engine.notificationLog(namespace: Self.alice)
            _ = try modify(database, save: [note("early", title: "T")])
            #expect(try log.entries(after: 0, limit: 100).head == .init(next: 41, oldest: 1))
            _ = try modify(database, save: (0..<10).map { note("n\($0)", title: "T") })

            let (entries, head) = try log.entries(after: 0, limit: 1_000)
            #expect(head.next == 441, "every entry took its position")
            let bytes = try engine.read { txn in
                try txn.scan(KeyRange(prefix: NotificationLog.entryPrefix(log.number).bytes), limit: 1_000)
                    .reduce(0) { $0 + $1.value.count }
            }
            #expect(bytes <= NotificationLog.maximumAppendBytes, "\(bytes) bytes written")
            #expect((60...70).contains(entries.count), "\(entries.count) entries kept")
            #expect(head.oldest == head.next - Int64(entries.count))
            #expect(entries.map(\.position) == Array(head.oldest..<head.next), "the newest, in order")
            #expect(entries.last?.recordName == "n9")
        }
    }

    /// 8 users with 10 public query subscriptions of 60 KB of alert each, and a public commit of
    /// 10 records they all match: 100 entries, 6 MB, per user, 48 MB in all. Each log takes at
    /// most 4 MiB, and the commit at most 16 MiB for all of them, shared equally: every log
    /// keeps its newest 2 MiB; every entry takes its position, so each client behind a dropped
    /// entry is told entries were dropped.
    @Test(arguments: Backend.allCases)
    func aPublicCommitSharesSixteenMebibytesBetweenItsUsersLogs(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let users = try publicSubscribers(8, subscriptionsEach: 10, in: engine)
            try publicCommit(10, in: engine)
            let (kept, total) = try logContents(users, in: engine, positions: 100)
            #expect(total <= NotificationLog.maximumCommitBytes, "\(total) bytes written")
            #expect(kept.allSatisfy { (33...35).contains($0) }, "\(kept)")
            print("a public commit for 8 users' 800 entries of 60 KB: kept \(kept), \(total) bytes")
        }
    }

    /// 300 users with one public query subscription of 60 KB each, and a public commit of one
    /// record: 18 MB of entries, past the commit's 16 MiB, and each log still keeps its one
    /// (newest) entry: a commit notifies every user whose subscription it fires.
    @Test(arguments: Backend.allCases)
    func everyUserKeepsTheNewestEntryOfACommit(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let users = try publicSubscribers(300, subscriptionsEach: 1, in: engine)
            try publicCommit(1, in: engine)
            let (kept, total) = try logContents(users, in: engine, positions: 1)
            #expect(kept == Array(repeating: 1, count: 300))
            #expect(total > NotificationLog.maximumCommitBytes, "\(total) bytes written")
        }
    }

    /// `count` users, each with `subscriptionsEach` public ``largeSubscriptions(_:)``.
    func publicSubscribers(_ count: Int, subscriptionsEach: Int, in engine: Engine) throws -> [Namespace] {
        let users = (0..<count).map {
            Namespace(container: Self.alice.container, environment: .development, owner: "_u\($0)")
        }
        for user in users {
            try subscribe(try engine.database(namespace: user, scope: .public), largeSubscriptions(subscriptionsEach))
        }
        return users
    }

    /// `count` query subscriptions `s0`… on every `Note` created, each with 60 KB of alert.
    func largeSubscriptions(_ count: Int) -> [CKSubscription] {
        (0..<count).map { n in
            let subscription = CKQuerySubscription(
                recordType: "Note", predicate: NSPredicate(value: true), subscriptionID: "s\(n)",
                options: [.firesOnRecordCreation])
            let info = CKSubscription.NotificationInfo()
            info.alertBody = String(repeating: "x", count: 60_000)
            subscription.notificationInfo = info
            return subscription
        }
    }

    /// Saves `count` new `Note` records in the public database in one commit, as `_bob`.
    func publicCommit(_ count: Int, in engine: Engine) throws {
        let everyone = Namespace(container: Self.alice.container, environment: .development)
        let writer = try engine.database(
            namespace: everyone, scope: .public, caller: Caller(userRecordName: "_bob", role: .user))
        let records = (0..<count).map { n -> CKRecord in
            let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "p\(n)"))
            record["title"] = "T"
            return record
        }
        let outcome = try writer.modifyRecords(
            ModifyRequest(records: records, deletes: [], policy: .allKeys, atomic: false, clientChangeTokenData: nil))
        for result in outcome.saveResults { _ = try result.1.get() }
    }

    /// The entries each user's log kept, and the bytes of them all; checks that every entry of
    /// the commit took its position (`positions` per log) and that each log kept its newest.
    func logContents(_ users: [Namespace], in engine: Engine, positions: Int64) throws -> (kept: [Int], bytes: Int) {
        var total = 0
        var kept: [Int] = []
        for user in users {
            let log = try engine.notificationLog(namespace: user)
            let (entries, head) = try log.entries(after: 0, limit: 1_000)
            #expect(head.next == positions + 1, "every entry took its position")
            #expect(head.oldest == head.next - Int64(entries.count), "the newest are kept")
            total += try engine.read { txn in
                try txn.scan(KeyRange(prefix: NotificationLog.entryPrefix(log.number).bytes), limit: 1_000)
                    .reduce(0) { $0 + $1.value.count }
            }
            kept.append(entries.count)
        }
        return (kept, total)
    }

    @Test(arguments: Backend.allCases)
    func firesOnceDeletesTheSubscriptionInTheSameCommit(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let database = try engine.database(namespace: Self.alice, scope: .private)
            _ = try database.modifyZones(saving: [Self.zone], deleting: [])
            try subscribe(database, [importantNotes(options: [.firesOnRecordCreation, .firesOnce])])
            _ = try modify(database, save: [note("a", title: "A", priority: 9), note("b", title: "B", priority: 8)])
            _ = try modify(database, save: [note("c", title: "C", priority: 9)])
            let log = try engine.notificationLog(namespace: Self.alice)
            #expect(try log.entries(after: 0, limit: 100).entries.count == 1)
            let left = try database.fetchSubscriptions(nil)
            #expect(left.isEmpty, "the firesOnce subscription is gone")
        }
    }

    @Test(arguments: Backend.allCases)
    func logsAreIsolatedAndEmbeddedContainersKeepNone(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let alice = try engine.database(namespace: Self.alice, scope: .private)
            let bob = try engine.database(namespace: Self.bob, scope: .private)
            let embedded = try engine.database(container: "iCloud.com.example.app", scope: .private)
            for database in [alice, bob, embedded] {
                _ = try database.modifyZones(saving: [Self.zone], deleting: [])
            }
            try subscribe(alice, [CKDatabaseSubscription(subscriptionID: "database")])
            try subscribe(embedded, [CKDatabaseSubscription(subscriptionID: "database")])
            _ = try modify(alice, save: [note("a", title: "A")])
            _ = try modify(bob, save: [note("b", title: "B")])
            let embeddedOutcome = try modify(embedded, save: [note("c", title: "C")])
            #expect(embeddedOutcome.notifiedLogs.isEmpty)
            #expect(try engine.notificationLog(namespace: Self.alice).entries(after: 0, limit: 10).entries.count == 1)
            #expect(try engine.notificationLog(namespace: Self.bob).entries(after: 0, limit: 10).entries.isEmpty)
            let production = Namespace(container: Self.alice.container, environment: .production, owner: "_alice")
            #expect(try engine.notificationLog(namespace: production).entries(after: 0, limit: 10).entries.isEmpty)
            let embeddedLog = NotificationLog(engine: engine, number: embedded.containerNumber)
            #expect(try embeddedLog.entries(after: 0, limit: 10).entries.isEmpty)
        }
    }

    @Test(arguments: Backend.allCases)
    func entriesPageAndPurgeMovesTheOldest(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let database = try engine.database(namespace: Self.alice, scope: .private)
            _ = try database.modifyZones(saving: [Self.zone], deleting: [])
            try subscribe(database, [CKDatabaseSubscription(subscriptionID: "database")])
            for index in 0..<5 { _ = try modify(database, save: [note("n\(index)", title: "\(index)")]) }
            let log = try engine.notificationLog(namespace: Self.alice)
            #expect(try log.entries(after: 2, limit: 2).entries.map(\.position) == [3, 4])
            try log.purge(through: 3)
            let (entries, head) = try log.entries(after: 0, limit: 10)
            #expect(entries.map(\.position) == [4, 5])
            #expect(head == NotificationLog.Head(next: 6, oldest: 4))
            #expect(try engine.notificationHeads([log.number])[log.number] == head)
            // Retention drops what was written before the cutoff, oldest first, bounded per call.
            #expect(try log.purge(writtenBefore: Date.distantPast) == 0)
            #expect(try log.purge(writtenBefore: Date().addingTimeInterval(1), limit: 1) == 1)
            #expect(try log.head() == NotificationLog.Head(next: 6, oldest: 5))
            #expect(try log.purge(writtenBefore: Date().addingTimeInterval(1)) == 1)
            #expect(try log.entries(after: 0, limit: 10).entries.isEmpty)
        }
    }

    @Test(arguments: Backend.allCases)
    func publicSubscriptionsBelongToTheirUserAndFireFromPublicCommits(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let everyone = Namespace(container: Self.alice.container, environment: .development)
            let once = CKQuerySubscription(
                recordType: "Note", predicate: NSPredicate(format: "priority > 5"), subscriptionID: "once",
                options: [.firesOnRecordCreation, .firesOnce])
            // Saved in the public namespace itself, a subscription has no owner's log: it fires nothing.
            try subscribe(try engine.database(namespace: everyone, scope: .public), [importantNotes()])
            let alicePublic = try engine.database(namespace: Self.alice, scope: .public)
            try subscribe(alicePublic, [importantNotes(), once])
            let bobWrites = try engine.database(
                namespace: everyone, scope: .public, caller: Caller(userRecordName: "_bob", role: .user))
            func publicNote(_ name: String, _ priority: Int) -> CKRecord {
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name))
                record["title"] = name
                record["priority"] = priority
                return record
            }
            for (name, priority) in [("p1", 9), ("p2", 1), ("p3", 8)] {
                let outcome = try bobWrites.modifyRecords(
                    ModifyRequest(
                        records: [publicNote(name, priority)], deletes: [], policy: .allKeys, atomic: false,
                        clientChangeTokenData: nil))
                _ = try outcome.saveResults[0].1.get()
            }
            let aliceLog = try engine.notificationLog(namespace: Self.alice)
            let entries = try aliceLog.entries(after: 0, limit: 10).entries
            #expect(
                entries.map { "\($0.subscriptionID):\($0.recordName ?? "")" } == [
                    "important:p1", "once:p1", "important:p3",
                ])
            #expect(entries.allSatisfy { $0.databaseScope == CKDatabase.Scope.public.rawValue })
            #expect(try engine.notificationLog(namespace: Self.bob).entries(after: 0, limit: 10).entries.isEmpty)
            let left = try alicePublic.fetchSubscriptions(nil).map(\.0)
            #expect(left == ["important"], "the firesOnce subscription went with its index entry")
            // Deleting the subscription takes it out of the index: nothing fires any more.
            _ = try alicePublic.modifySubscriptions(saving: [], deleting: ["important"]).deleted[0].1.get()
            _ = try bobWrites.modifyRecords(
                ModifyRequest(
                    records: [publicNote("p4", 9)], deletes: [], policy: .allKeys, atomic: false,
                    clientChangeTokenData: nil))
            #expect(try aliceLog.entries(after: 0, limit: 10).entries.count == 3)
        }
    }

    @Test func embeddedPublicQuerySubscriptionsAreUnchanged() async throws {
        try await withEngine(.memory) { engine in
            let embedded = try engine.database(container: "iCloud.com.example.app", scope: .public)
            _ = try embedded.modifySubscriptions(saving: [importantNotes()], deleting: []).saved[0].1.get()
        }
    }

    @Test func thePayloadParsesAsACloudKitNotification() async throws {
        try await withEngine(.memory) { engine in
            let database = try engine.database(namespace: Self.alice, scope: .private)
            _ = try database.modifyZones(saving: [Self.zone], deleting: [])
            try subscribe(database, [importantNotes()])
            _ = try modify(database, save: [note("a", title: String(repeating: "x", count: 150), priority: 9)])
            let entry = try #require(
                try engine.notificationLog(namespace: Self.alice).entries(after: 0, limit: 1).entries.first)
            let payload = entry.payload(container: "iCloud.com.example.app", userRecordName: "_alice")
            let parsed = try #require(CKNotification.parse(Self.foundation(.object(payload)) as! [String: Any]))
            let query = try #require(parsed as? CKQueryNotification)
            #expect(query.recordID?.recordName == "a")
            #expect(query.recordID?.zoneID.zoneName == "Notes")
            #expect(query.queryNotificationReason == .recordCreated)
            #expect(query.subscriptionID == "important")
            #expect(query.databaseScope == .private)
            #expect(query.alertBody == "An important note")
            #expect(query.containerIdentifier == "iCloud.com.example.app")
            #expect(query.subscriptionOwnerUserRecordID?.recordName == "_alice")
            #expect((query.recordFields?["title"] as? String)?.count == 100, "truncated to 100 characters")
        }
    }

    static func foundation(_ value: NotificationPayloadValue) -> Any {
        switch value {
        case .string(let string): return string
        case .integer(let int): return Int(int)
        case .double(let double): return double
        case .strings(let strings): return strings
        case .object(let object): return object.mapValues { foundation($0) }
        }
    }
}
