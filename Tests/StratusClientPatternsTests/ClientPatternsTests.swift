import Foundation
import Stratus
import Testing

/// Client code as written against Apple's SDK (``NoteSync``), run on every backend: blocks that
/// capture non-Sendable state, both callback generations, results discarded where Apple lets
/// them be, partial errors read the usual ways.
@Suite("Client patterns: code written for Apple's CloudKit, in Swift 6 mode")
struct ClientPatternsTests {
    /// Waits for a completion-handler call.
    private func wait<T: Sendable>(_ start: (@escaping (T) -> Void) -> Void) async -> T {
        await withCheckedContinuation { continuation in start { continuation.resume(returning: $0) } }
    }

    private func note(_ name: String, _ title: String, in sync: NoteSync) -> CKRecord {
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: sync.zoneID))
        record["title"] = title as NSString
        record["rank"] = NSNumber(value: Int(name.dropFirst(1)) ?? 0)
        return record
    }

    @Test(arguments: ClientBackend.allCases)
    func blocksCaptureNonSendableStateOnEveryOperation(_ backend: ClientBackend) async throws {
        try await backend.withContainer { container in
            let sync = NoteSync(database: container.privateCloudDatabase, zoneName: "Notes")
            #expect(await wait { sync.createZone(completion: $0) } == nil)
            let saved = try await wait {
                sync.save((1...5).map { note("n\($0)", "Note \($0)", in: sync) }, completion: $0)
            }
            .get()
            #expect(saved.count == 5)
            #expect(sync.cache.count == 5)
            let legacy = await wait { done in
                sync.saveWithCompletionBlocks([note("n6", "Six", in: sync)]) { records, error in
                    done(records?.count ?? -1)
                    #expect(error == nil)
                }
            }
            #expect(legacy == 1)
            #expect(sync.events.contains("legacy save 1"))

            #expect(await wait { sync.fetchZoneChanges(completion: $0) } == nil)
            #expect(sync.zoneToken != nil)
            #expect(
                await wait { sync.delete([CKRecord.ID(recordName: "n2", zoneID: sync.zoneID)], completion: $0) } == nil)
            #expect(await wait { sync.fetchZoneChanges(completion: $0) } == nil)
            #expect(sync.deletedIDs.map(\.recordName) == ["n2"])
            #expect(sync.cache.count == 5)

            #expect(await wait { sync.fetchDatabaseChanges(completion: $0) } == nil)
            #expect(sync.changedZoneIDs.contains(sync.zoneID))
            #expect(sync.databaseToken != nil)

            let query = CKQuery(recordType: "Note", predicate: NSPredicate(format: "rank >= %d", 3))
            query.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
            let (first, cursor) = try await wait { sync.query(query, limit: 2, completion: $0) }.get()
            #expect(first.map(\.recordID.recordName) == ["n3", "n4"])
            let next = try #require(cursor)
            let (rest, end) = try await wait { sync.query(query, limit: 2, cursor: next, completion: $0) }.get()
            #expect(rest.map(\.recordID.recordName) == ["n5", "n6"])
            #expect(end == nil)

            let missing = CKRecord.ID(recordName: "n2", zoneID: sync.zoneID)
            let fetched = await wait {
                sync.fetch([CKRecord.ID(recordName: "n1", zoneID: sync.zoneID), missing], completion: $0)
            }
            #expect(
                (try? fetched[CKRecord.ID(recordName: "n1", zoneID: sync.zoneID)]?.get())?["title"] as? String
                    == "Note 1")
            #expect((fetched[missing].flatMap { try? $0.get() }) == nil)

            #expect(try await wait { sync.subscribe(completion: $0) }.get() == ["notes-Notes"])
            let zones = await wait { sync.fetchZones(completion: $0) }
            #expect(zones.contains(sync.zoneID))
        }
    }

    @Test(arguments: ClientBackend.allCases)
    func resultsAppleLetsYouDiscard(_ backend: ClientBackend) async throws {
        try await backend.withContainer { container in
            let database = container.privateCloudDatabase
            let zoneID = CKRecordZone.ID(zoneName: "Scratch", ownerName: CKCurrentUserDefaultName)
            _ = try await database.save(CKRecordZone(zoneID: zoneID))
            let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "gone", zoneID: zoneID))
            _ = try await database.save(record)
            _ = try await database.save(CKRecordZoneSubscription(zoneID: zoneID, subscriptionID: "scratch"))
            // Apple marks the three deletes @discardableResult (and not the saves above).
            try await database.deleteRecord(withID: record.recordID)
            try await database.deleteSubscription(withID: "scratch")
            try await database.deleteRecordZone(withID: zoneID)
            let zones = try await database.allRecordZones()
            #expect(!zones.contains { $0.zoneID == zoneID })
        }
    }

    @Test(arguments: ClientBackend.allCases)
    func partialErrorsReadTheUsualWays(_ backend: ClientBackend) async throws {
        try await backend.withContainer { container in
            let sync = NoteSync(database: container.privateCloudDatabase, zoneName: "Conflicts")
            #expect(await wait { sync.createZone(completion: $0) } == nil)
            let original = try await wait { sync.save([note("c1", "First", in: sync)], completion: $0) }.get()
            let stale = try #require(original.first?.copy() as? CKRecord)
            _ = try await wait { sync.save([note("c1", "Second", in: sync)], policy: .allKeys, completion: $0) }.get()
            stale["title"] = "Stale" as NSString
            let fresh = note("c2", "Fresh", in: sync)

            // The result blocks: per-record errors in the per-record block, never partialFailure.
            let result = await wait { sync.save([stale, fresh], policy: .ifServerRecordUnchanged, completion: $0) }
            #expect(try result.get().map(\.recordID) == [fresh.recordID])
            let perRecord = try #require(sync.failures[stale.recordID] as? CKError)
            #expect(perRecord.code == .serverRecordChanged)
            #expect(perRecord.serverRecord?["title"] as? String == "Second")
            #expect(perRecord.clientRecord?["title"] as? String == "Stale")

            // The completion blocks: partialFailure (the zone is atomic, so the other record
            // fails with batchRequestFailed), read through CKError, its partial errors, the
            // user info key, and NSError.
            let third = note("c3", "Third", in: sync)
            let error = await wait { done in
                sync.saveWithCompletionBlocks([stale, third]) { _, error in done(error) }
            }
            let ckError = try #require(error as? CKError)
            #expect(ckError.code == .partialFailure)
            let byID = try #require(ckError.partialErrorsByItemID)
            let conflict = try #require(byID[stale.recordID] as? CKError)
            #expect(conflict.code == .serverRecordChanged)
            #expect(conflict.serverRecord?["title"] as? String == "Second")
            #expect((byID[third.recordID] as? CKError)?.code == .batchRequestFailed)
            let nsError = try #require(error.map { $0 as NSError })
            #expect(nsError.domain == CKErrorDomain)
            #expect(nsError.code == CKError.Code.partialFailure.rawValue)
            #expect((nsError.userInfo[CKPartialErrorsByItemIDKey] as? [AnyHashable: any Error])?.count == 2)
            #expect(sync.cache[fresh.recordID] != nil)
        }
    }
}
