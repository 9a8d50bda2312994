import Foundation
import Stratus
import StratusTestSupport
import Synchronization

/// One app's session of CloudKit calls, written down as a transcript of what it saw: run on an
/// embedded container and on a remote one, the two transcripts must be the same line for line
/// (decision 0016: a remote container cannot be told apart from an embedded one). Tokens and
/// change tags are opaque and differ between stores, so the transcript records how they behave
/// (a later token sees only later changes) rather than their bytes.
struct SideBySideScenario {
    let database: CKDatabase
    private(set) var lines: [String] = []

    init(_ database: CKDatabase) {
        self.database = database
    }

    mutating func note(_ line: String) {
        lines.append(line)
    }

    /// A record's fields and parent, sorted, as text.
    static func describe(_ record: CKRecord) -> String {
        let fields = record.allKeys().sorted().map { key in "\(key)=\(String(describing: record[key]!))" }
        let parent = record.parent.map { " parent=\($0.recordID.recordName)" } ?? ""
        return "\(record.recordType) \(record.recordID.recordName) [\(fields.joined(separator: ", "))]\(parent)"
    }

    /// An error's code, or "ok".
    static func outcome<T>(_ result: Result<T, any Error>) -> String {
        switch result {
        case .success: return "ok"
        case .failure(let error as CKError): return "\(error.code.name)"
        case .failure(let error): return "other: \(error)"
        }
    }

    /// Runs the whole session.
    mutating func run() async throws {
        let zone = CKRecordZone.ID(zoneName: "Side")
        try await zones(zone)
        let first = try await saves(zone)
        try await changes(zone, from: nil, "all")
        try await edits(zone, first)
        try await changes(zone, from: first, "since the first token")
        try await clientToken(zone)
        try await queries(zone)
        try await subscriptions(zone)
        try await databaseChanges(zone)
    }

    private mutating func zones(_ zone: CKRecordZone.ID) async throws {
        let saved = try await database.modifyRecordZones(saving: [CKRecordZone(zoneID: zone)], deleting: [])
        note("zone saved: \(saved.saveResults.map { "\($0.key.zoneName) \(Self.outcome($0.value.map { _ in () }))" })")
        let all = try await database.allRecordZones().map(\.zoneID.zoneName).sorted()
        note("zones: \(all)")
        let missing = CKRecordZone.ID(zoneName: "Missing")
        let looked = try await database.recordZones(for: [zone, missing])
        note(
            "lookup: \(looked.sorted { $0.key.zoneName < $1.key.zoneName }.map { "\($0.key.zoneName) \(Self.outcome($0.value.map { _ in () }))" })"
        )
    }

    /// Saves 30 records (a parent and children, every scalar type) and returns the token after.
    private mutating func saves(_ zone: CKRecordZone.ID) async throws -> CKServerChangeToken {
        let parent = CKRecord(recordType: "Folder", recordID: CKRecord.ID(recordName: "folder", zoneID: zone))
        parent["name"] = "Inbox"
        var records = [parent]
        for index in 0..<29 {
            let note = CKRecord(
                recordType: "Note", recordID: CKRecord.ID(recordName: String(format: "note-%02d", index), zoneID: zone))
            note["title"] = "title \(index % 7)"
            note["rank"] = Int64(index)
            note["score"] = Double(index) / 4
            note["tags"] = ["t\(index % 3)", "all"]
            note["when"] = Date(timeIntervalSince1970: 1_700_000_000 + Double(index))
            note["blob"] = Data([UInt8(index), 0, 255])
            note.parent = CKRecord.Reference(recordID: parent.recordID, action: .none)
            note["folder"] = CKRecord.Reference(recordID: parent.recordID, action: .deleteSelf)
            records.append(note)
        }
        let result = try await database.modifyRecords(saving: records, deleting: [])
        note("saved \(result.saveResults.values.filter { (try? $0.get()) != nil }.count) of \(records.count)")
        let batch = try await database.recordZoneChanges(inZoneWith: zone, since: nil)
        return batch.changeToken
    }

    /// Updates, a stale save, a change-tag delete, a cascade, an atomic batch with one failure.
    private mutating func edits(_ zone: CKRecordZone.ID, _ token: CKServerChangeToken) async throws {
        let id = CKRecord.ID(recordName: "note-03", zoneID: zone)
        let fetched = try await database.record(for: id)
        note("fetched: \(Self.describe(fetched)) changed=\(fetched.changedKeys().sorted())")
        let stale = try await database.record(for: id)
        fetched["title"] = "edited"
        fetched["score"] = nil
        let edited = try await database.save(fetched)
        note("edited: \(Self.describe(edited))")
        stale["title"] = "stale"
        do {
            _ = try await database.save(stale)
            note("stale save: ok")
        } catch let error as CKError {
            note("stale save: \(error.code.name) server=\(error.serverRecord.map(Self.describe) ?? "none")")
        }
        let other = try await database.record(for: CKRecord.ID(recordName: "note-04", zoneID: zone))
        other["title"] = "changed keys"
        let policy = try await database.modifyRecords(saving: [other], deleting: [], savePolicy: .changedKeys)
        note("changedKeys save: \(policy.saveResults.values.map { Self.outcome($0.map { _ in () }) })")
        let deleted = try await database.modifyRecords(
            saving: [],
            deleting: [
                CKRecord.ID(recordName: "note-05", zoneID: zone), CKRecord.ID(recordName: "nope", zoneID: zone),
            ],
            atomically: false)
        note(
            "deletes: \(deleted.deleteResults.sorted { $0.key.recordName < $1.key.recordName }.map { "\($0.key.recordName) \(Self.outcome($0.value))" })"
        )
        let good = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "atomic-good", zoneID: zone))
        let bad = try await database.record(for: CKRecord.ID(recordName: "note-06", zoneID: zone))
        let badCopy = bad.copy() as! CKRecord
        bad["title"] = "first"
        _ = try await database.save(bad)
        badCopy["title"] = "conflict"
        do {
            let atomic = try await database.modifyRecords(saving: [good, badCopy], deleting: [], atomically: true)
            note(
                "atomic: \(atomic.saveResults.sorted { $0.key.recordName < $1.key.recordName }.map { "\($0.key.recordName) \(Self.outcome($0.value.map { _ in () }))" })"
            )
        } catch let error as CKError {
            note("atomic: \(error.code.name)")
        }
        let after = try await database.records(for: [good.recordID])
        note("atomic-good after: \(after.values.map { Self.outcome($0.map { _ in () }) })")
        _ = token
    }

    private mutating func changes(_ zone: CKRecordZone.ID, from token: CKServerChangeToken?, _ label: String)
        async throws
    {
        var next = token
        var changed: [String] = []
        var deleted: [String] = []
        var pages = 0
        while true {
            let batch = try await database.recordZoneChanges(inZoneWith: zone, since: next, resultsLimit: 7)
            pages += 1
            for (id, result) in batch.modificationResultsByID {
                changed.append("\(id.recordName):\((try? result.get()).map { Self.describe($0.record) } ?? "error")")
            }
            deleted += batch.deletions.map { "\($0.recordID.recordName) \($0.recordType)" }
            next = batch.changeToken
            if !batch.moreComing { break }
        }
        note("changes \(label): \(pages) pages, changed \(changed.sorted()), deleted \(deleted.sorted())")
        let again = try await database.recordZoneChanges(inZoneWith: zone, since: next)
        note(
            "changes \(label) after the last token: \(again.modificationResultsByID.count) \(again.deletions.count) \(again.moreComing)"
        )
    }

    /// A modify's `clientChangeTokenData`, as a zone-changes fetch reports it.
    private mutating func clientToken(_ zone: CKRecordZone.ID) async throws {
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "tokened", zoneID: zone))
        let modify = CKModifyRecordsOperation(recordsToSave: [record], recordIDsToDelete: nil)
        modify.clientChangeTokenData = Data("device-7".utf8)
        let modified = DispatchSemaphore(value: 0)
        modify.completionBlock = { modified.signal() }
        database.add(modify)
        await offPool { modified.wait() }
        let fetch = CKFetchRecordZoneChangesOperation(recordZoneIDs: [zone], configurationsByRecordZoneID: nil)
        let reported = Mutex<String>("none")
        fetch.recordZoneFetchResultBlock = { _, result in
            if case .success(let end) = result {
                reported.withLock {
                    $0 = end.clientChangeTokenData.map { String(decoding: $0, as: UTF8.self) } ?? "nil"
                }
            }
        }
        let fetched = DispatchSemaphore(value: 0)
        fetch.completionBlock = { fetched.signal() }
        database.add(fetch)
        await offPool { fetched.wait() }
        note("client change token reported: \(reported.withLock { $0 })")
    }

    private mutating func queries(_ zone: CKRecordZone.ID) async throws {
        let shapes: [(String, NSPredicate, [NSSortDescriptor])] = [
            ("all by rank", NSPredicate(value: true), [NSSortDescriptor(key: "rank", ascending: false)]),
            ("title equal", NSPredicate(format: "title == %@", "title 2"), []),
            (
                "rank range", NSPredicate(format: "rank >= %d AND rank < %d", 10, 20),
                [NSSortDescriptor(key: "rank", ascending: true)]
            ),
            (
                "tags contain", NSPredicate(format: "tags CONTAINS %@", "t1"),
                [NSSortDescriptor(key: "score", ascending: true)]
            ),
            ("begins with", NSPredicate(format: "title BEGINSWITH %@", "title"), []),
            ("in list", NSPredicate(format: "rank IN %@", [1, 2, 3, 28] as [Int]), []),
            (
                "reference",
                NSPredicate(
                    format: "folder == %@",
                    CKRecord.Reference(recordID: CKRecord.ID(recordName: "folder", zoneID: zone), action: .none)), []
            ),
            ("date", NSPredicate(format: "when > %@", Date(timeIntervalSince1970: 1_700_000_020) as NSDate), []),
        ]
        for (label, predicate, sorts) in shapes {
            let query = CKQuery(recordType: "Note", predicate: predicate)
            if !sorts.isEmpty { query.sortDescriptors = sorts }
            var names: [String] = []
            var page = try await database.records(matching: query, inZoneWith: zone, resultsLimit: 4)
            var pages = 1
            while true {
                names += page.matchResults.map { $0.0.recordName }
                guard let cursor = page.queryCursor else { break }
                page = try await database.records(continuingMatchFrom: cursor, resultsLimit: 4)
                pages += 1
            }
            note("query \(label): \(pages) pages \(sorts.isEmpty ? names.sorted() : names)")
        }
        do {
            _ = try await database.records(
                matching: CKQuery(recordType: "Note", predicate: NSPredicate(format: "title MATCHES %@", ".*")))
            note("bad query: ok")
        } catch let error as CKError {
            note("bad query: \(error.code.name)")
        }
    }

    private mutating func subscriptions(_ zone: CKRecordZone.ID) async throws {
        let zoneSubscription = CKRecordZoneSubscription(zoneID: zone, subscriptionID: "zone-sub")
        let info = CKSubscription.NotificationInfo()
        info.shouldSendContentAvailable = true
        info.desiredKeys = ["title"]
        zoneSubscription.notificationInfo = info
        let querySubscription = CKQuerySubscription(
            recordType: "Note", predicate: NSPredicate(format: "rank > %d", 5), subscriptionID: "query-sub",
            options: [.firesOnRecordCreation, .firesOnRecordUpdate])
        let databaseSubscription = CKDatabaseSubscription(subscriptionID: "db-sub")
        _ = try await database.modifySubscriptions(
            saving: [zoneSubscription, querySubscription, databaseSubscription], deleting: [])
        let all = try await database.allSubscriptions().sorted { $0.subscriptionID < $1.subscriptionID }
        note(
            "subscriptions: \(all.map { "\($0.subscriptionID) \($0.subscriptionType.rawValue) \($0.notificationInfo?.desiredKeys ?? [])" })"
        )
        if let query = all.first(where: { $0.subscriptionID == "query-sub" }) as? CKQuerySubscription {
            note(
                "query subscription: \(query.recordType ?? "") \(query.querySubscriptionOptions.rawValue)"
            )
        }
        let removed = try await database.modifySubscriptions(saving: [], deleting: ["zone-sub", "never"])
        note(
            "subscription deletes: \(removed.deleteResults.sorted { $0.key < $1.key }.map { "\($0.key) \(Self.outcome($0.value))" })"
        )
    }

    private mutating func databaseChanges(_ zone: CKRecordZone.ID) async throws {
        let start = try await database.databaseChanges(since: nil)
        note("database changes: \(start.modifications.map(\.zoneID.zoneName).sorted()) \(start.deletions.count)")
        _ = try await database.modifyRecordZones(saving: [CKRecordZone(zoneName: "Later")], deleting: [zone])
        let later = try await database.databaseChanges(since: start.changeToken)
        note(
            "database changes after: \(later.modifications.map(\.zoneID.zoneName).sorted()) deleted \(later.deletions.map(\.zoneID.zoneName).sorted())"
        )
        do {
            _ = try await database.recordZoneChanges(inZoneWith: zone, since: nil)
            note("changes of a deleted zone: ok")
        } catch let error as CKError {
            note("changes of a deleted zone: \(error.code.name)")
        }
    }
}
