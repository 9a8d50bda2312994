import Foundation
import Stratus
import StratusTestSupport
import Synchronization

/// The standard operations, run on one container, written down as a transcript of what their
/// callbacks delivered (names, fields, error codes, counts; never tokens, which differ from
/// store to store). Two containers that behave the same give the same transcript.
enum SeamScenario {
    /// Runs every standard operation on `container`'s private database and returns the
    /// transcript.
    static func run(_ container: CKContainer) async throws -> [String] {
        let database = container.privateCloudDatabase
        var lines: [String] = []
        let zoneID = try await zones(database, &lines)
        try await saveNotes(0..<7, in: zoneID, database)
        _ = try await database.modifyRecords(saving: [], deleting: [CKRecord.ID(recordName: "n6", zoneID: zoneID)])
        try await fetches(database, zoneID, &lines)
        try await query(database, zoneID, &lines)
        let token = try await zoneChanges(database, zoneID, since: nil, &lines)
        try await saveNotes(7..<8, in: zoneID, database)
        _ = try await zoneChanges(database, zoneID, since: token, &lines)
        let changes = try await database.databaseChanges(since: nil)
        lines.append("database changes: \(changes.modifications.map(\.zoneID.zoneName).sorted())")
        try await subscriptions(database, zoneID, &lines)
        try await longLived(container, zoneID, &lines)
        lines.append("user: \(try await container.userRecordID().recordName)")
        return lines
    }

    /// A note record `name` in `zoneID`.
    static func note(_ name: String, in zoneID: CKRecordZone.ID, rank: Int) -> CKRecord {
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
        record["title"] = "note \(name)"
        record["rank"] = rank
        return record
    }

    /// Saves notes `n<i>` with rank `i` for each `i` in `range`, in one request.
    static func saveNotes(_ range: Range<Int>, in zoneID: CKRecordZone.ID, _ database: CKDatabase) async throws {
        let results = try await database.modifyRecords(
            saving: range.map { note("n\($0)", in: zoneID, rank: $0) }, deleting: [])
        for (_, result) in results.saveResults { _ = try result.get() }
    }

    /// Runs `operation` on `database` and returns after its last callback.
    static func run(_ operation: CKDatabaseOperation, on database: CKDatabase) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            operation.completionBlock = { continuation.resume() }
            database.add(operation)
        }
    }

    /// A record's transcript line: name, title and rank.
    private static func describe(_ record: CKRecord) -> String {
        "\(record.recordID.recordName) \(record["title"] as? String ?? "-") \(record["rank"] as? Int ?? -1)"
    }

    /// The code of `error`, or its description.
    private static func describe(_ error: any Error) -> String {
        (error as? CKError).map { "error \($0.code)" } ?? "error \(error)"
    }

    /// Creates the zone `Notes` and lists the zones.
    private static func zones(_ database: CKDatabase, _ lines: inout [String]) async throws -> CKRecordZone.ID {
        let zoneID = try await database.save(CKRecordZone(zoneName: "Notes")).zoneID
        let all = try await database.allRecordZones()
        lines.append("zones: \(all.map(\.zoneID.zoneName).sorted())")
        let missing = try await database.recordZones(for: [CKRecordZone.ID(zoneName: "Missing")])
        lines.append("missing zone: \(missing.values.map { (try? $0.get()) == nil })")
        return zoneID
    }

    /// Fetches two records and a missing one.
    private static func fetches(_ database: CKDatabase, _ zoneID: CKRecordZone.ID, _ lines: inout [String])
        async throws
    {
        let ids = ["n0", "n3", "n6", "nope"].map { CKRecord.ID(recordName: $0, zoneID: zoneID) }
        let fetched = try await database.records(for: ids)
        for id in ids {
            switch fetched[id] {
            case .success(let record)?: lines.append("fetched \(describe(record))")
            case .failure(let error)?: lines.append("fetched \(id.recordName): \(describe(error))")
            case nil: lines.append("fetched \(id.recordName): nothing")
            }
        }
    }

    /// Walks a sorted query two records a page, following its cursor.
    private static func query(_ database: CKDatabase, _ zoneID: CKRecordZone.ID, _ lines: inout [String])
        async throws
    {
        let query = CKQuery(recordType: "Note", predicate: NSPredicate(format: "rank >= %d", 1))
        query.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: false)]
        var page = try await database.records(matching: query, inZoneWith: zoneID, resultsLimit: 2)
        var pages = 1
        while true {
            for (id, result) in page.matchResults {
                lines.append("matched \((try? result.get()).map(describe) ?? id.recordName)")
            }
            guard let cursor = page.queryCursor else { break }
            page = try await database.records(continuingMatchFrom: cursor, resultsLimit: 2)
            pages += 1
        }
        lines.append("query pages: \(pages)")
    }

    /// Fetches `zoneID`'s changes since `token` two a batch, all of them; returns the token.
    private static func zoneChanges(
        _ database: CKDatabase, _ zoneID: CKRecordZone.ID, since token: CKServerChangeToken?,
        _ lines: inout [String]
    ) async throws -> CKServerChangeToken? {
        let fetch = await ZoneChangeFetch.fetch(database, zoneID: zoneID, since: token, resultsLimit: 2)
        if let error = fetch.error { throw error }
        for change in fetch.changes {
            switch change {
            case .changed(let record): lines.append("changed \(describe(record))")
            case .deleted(let name): lines.append("deleted \(name)")
            case .failed(let name, let error): lines.append("failed \(name): \(describe(error))")
            }
        }
        return fetch.token
    }

    /// Saves a zone subscription and a database subscription, then lists them.
    private static func subscriptions(_ database: CKDatabase, _ zoneID: CKRecordZone.ID, _ lines: inout [String])
        async throws
    {
        _ = try await database.modifySubscriptions(
            saving: [
                CKRecordZoneSubscription(zoneID: zoneID, subscriptionID: "notes"),
                CKDatabaseSubscription(subscriptionID: "everything"),
            ], deleting: [])
        let all = try await database.allSubscriptions()
        lines.append("subscriptions: \(all.map(\.subscriptionID).sorted())")
    }

    /// A long-lived modify: persisted, delivered, and no longer listed.
    private static func longLived(_ container: CKContainer, _ zoneID: CKRecordZone.ID, _ lines: inout [String])
        async throws
    {
        let operation = CKModifyRecordsOperation(recordsToSave: [note("ll", in: zoneID, rank: 42)])
        operation.configuration.isLongLived = true
        let log = Mutex<[String]>([])
        operation.longLivedOperationWasPersistedBlock = { log.withLock { $0.append("persisted") } }
        operation.perRecordSaveBlock = { id, result in
            log.withLock { $0.append("saved \(id.recordName) \((try? result.get()) != nil)") }
        }
        operation.modifyRecordsResultBlock = { result in
            log.withLock { $0.append("long-lived \((try? result.get()) != nil)") }
        }
        await run(operation, on: container.privateCloudDatabase)
        lines += log.withLock { $0 }
        lines.append("outstanding: \(try await container.allLongLivedOperationIDs().count)")
    }
}
