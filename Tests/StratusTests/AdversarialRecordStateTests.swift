import Foundation
import Stratus
import Testing

/// Save policies against partially fetched records, asset contents across edits, copies and
/// deletions, and delete-then-recreate as change fetches see it.
@Suite struct AdversarialRecordStateTests {
    /// A database with zone "Z" and record "full" holding fields a, b, c.
    static func fixture() async throws -> (database: CKDatabase, zoneID: CKRecordZone.ID, stored: CKRecord) {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "full", zoneID: zoneID))
        record["a"] = "A"
        record["b"] = "B"
        record["c"] = 3
        let stored = try #require(try await OpsTestKit.save([record], in: database).first)
        return (database, zoneID, stored)
    }

    static func partial(
        _ id: CKRecord.ID, keys: [String], in database: CKDatabase
    ) async throws -> CKRecord {
        try #require(try await database.records(for: [id], desiredKeys: keys)[id]?.get())
    }

    // MARK: Save policies with desiredKeys

    @Test(arguments: [
        CKModifyRecordsOperation.RecordSavePolicy.ifServerRecordUnchanged, .changedKeys, .allKeys,
    ])
    func savingARecordFetchedWithDesiredKeysKeepsTheOtherFields(policy: CKModifyRecordsOperation.RecordSavePolicy)
        async throws
    {
        let (database, _, stored) = try await Self.fixture()
        let partial = try await Self.partial(stored.recordID, keys: ["a"], in: database)
        #expect(partial.allKeys() == ["a"])
        #expect(partial.changedKeys().isEmpty)
        partial["a"] = "A2"
        partial["d"] = "D"
        #expect(Set(partial.changedKeys()) == ["a", "d"])
        let results = await AdversarialKit.modify(database, saving: [partial], policy: policy)
        let saved = try #require(try results.saves[stored.recordID]?.get())
        // The saved record comes back whole, and the server keeps b and c.
        #expect(saved.allKeys() == ["a", "b", "c", "d"])
        let fetched = try await database.record(for: stored.recordID)
        #expect(fetched["a"] as? String == "A2")
        #expect(fetched["b"] as? String == "B")
        #expect(fetched["c"] as? Int == 3)
        #expect(fetched["d"] as? String == "D")
        #expect(fetched.recordChangeTag != stored.recordChangeTag)
    }

    /// `desiredKeys: []` returns system fields only; saving such a record with a new field
    /// keeps every stored field.
    @Test func aRecordFetchedWithNoKeysCanBeUpdated() async throws {
        let (database, _, stored) = try await Self.fixture()
        let empty = try await Self.partial(stored.recordID, keys: [], in: database)
        #expect(empty.allKeys().isEmpty)
        #expect(empty.recordChangeTag == stored.recordChangeTag)
        empty["e"] = "E"
        _ = try await database.save(empty)
        let fetched = try await database.record(for: stored.recordID)
        #expect(fetched.allKeys() == ["a", "b", "c", "e"])
    }

    /// A key removed locally is removed by every policy; a key never fetched is not.
    @Test(arguments: [
        CKModifyRecordsOperation.RecordSavePolicy.ifServerRecordUnchanged, .changedKeys, .allKeys,
    ])
    func aKeyRemovedLocallyIsRemovedOnTheServer(policy: CKModifyRecordsOperation.RecordSavePolicy) async throws {
        let (database, _, stored) = try await Self.fixture()
        let partial = try await Self.partial(stored.recordID, keys: ["a", "b"], in: database)
        partial["b"] = nil
        #expect(partial.changedKeys() == ["b"])
        let results = await AdversarialKit.modify(database, saving: [partial], policy: policy)
        #expect(OpsTestKit.code(results.saves[stored.recordID]) == nil)
        let fetched = try await database.record(for: stored.recordID)
        #expect(fetched.allKeys() == ["a", "c"])
    }

    /// A stale copy saved with `changedKeys` writes only its changed keys, so a concurrent edit
    /// of another key survives; with `allKeys` every local key is written back.
    @Test func changedKeysAndAllKeysWithAStaleCopy() async throws {
        let (database, _, stored) = try await Self.fixture()
        let stale = try await database.record(for: stored.recordID)
        let fresh = try await database.record(for: stored.recordID)
        fresh["b"] = "B from elsewhere"
        _ = try await database.save(fresh)

        stale["a"] = "A from stale"
        let conflict = await AdversarialKit.modify(database, saving: [stale], policy: .ifServerRecordUnchanged)
        #expect(OpsTestKit.code(conflict.saves[stored.recordID]) == .serverRecordChanged)
        let changed = await AdversarialKit.modify(database, saving: [stale], policy: .changedKeys)
        #expect(OpsTestKit.code(changed.saves[stored.recordID]) == nil)
        var fetched = try await database.record(for: stored.recordID)
        #expect(fetched["a"] as? String == "A from stale")
        #expect(fetched["b"] as? String == "B from elsewhere")

        let all = await AdversarialKit.modify(database, saving: [stale], policy: .allKeys)
        #expect(OpsTestKit.code(all.saves[stored.recordID]) == nil)
        fetched = try await database.record(for: stored.recordID)
        #expect(fetched["b"] as? String == "B")
    }

    /// The server record handed back with `serverRecordChanged` carries every field and the
    /// current tag: merging into it and saving succeeds and loses nothing.
    @Test func mergingIntoTheServerRecordOfAConflictLosesNothing() async throws {
        let (database, _, stored) = try await Self.fixture()
        let partial = try await Self.partial(stored.recordID, keys: ["a"], in: database)
        let other = try await database.record(for: stored.recordID)
        other["c"] = 4
        _ = try await database.save(other)
        partial["a"] = "mine"
        let error = await #expect(throws: CKError.self) { try await database.save(partial) }
        #expect(error?.code == .serverRecordChanged)
        let server = try #require(error?.serverRecord)
        #expect(server.allKeys() == ["a", "b", "c"])
        #expect(server["c"] as? Int == 4)
        server["a"] = "mine"
        _ = try await database.save(server)
        let fetched = try await database.record(for: stored.recordID)
        #expect(fetched["a"] as? String == "mine" && fetched["b"] as? String == "B" && fetched["c"] as? Int == 4)
    }

    // MARK: Assets

    static func assetFile(_ content: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stratus-adversarial-\(UUID().uuidString)")
        try Data(content.utf8).write(to: url)
        return url
    }

    /// The content of `record[key]`'s asset as stored: the local copy is removed first, so
    /// the content is read from the store again.
    static func storedAssetContent(_ id: CKRecord.ID, _ key: String, in database: CKDatabase) async throws -> String? {
        let first = try await database.record(for: id)
        guard let asset = first[key] as? CKAsset, let url = asset.fileURL else { return nil }
        try? FileManager.default.removeItem(at: url)
        let again = try await database.record(for: id)
        guard let url = (again[key] as? CKAsset)?.fileURL, let data = try? Data(contentsOf: url) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    @Test(arguments: [
        CKModifyRecordsOperation.RecordSavePolicy.ifServerRecordUnchanged, .changedKeys, .allKeys,
    ])
    func assetContentSurvivesModifyingAnotherField(policy: CKModifyRecordsOperation.RecordSavePolicy) async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        let file = try Self.assetFile("asset content")
        defer { try? FileManager.default.removeItem(at: file) }
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "p", zoneID: zoneID))
        record["image"] = CKAsset(fileURL: file)
        record["title"] = "first"
        try await OpsTestKit.save([record], in: database)
        // The app's file may go away once saved.
        try FileManager.default.removeItem(at: file)

        for round in 0..<2 {
            let fetched = try await database.record(for: record.recordID)
            fetched["title"] = "edit \(round)"
            let results = await AdversarialKit.modify(database, saving: [fetched], policy: policy)
            #expect(OpsTestKit.code(results.saves[record.recordID]) == nil)
            #expect(try await Self.storedAssetContent(record.recordID, "image", in: database) == "asset content")
        }
        // A partial fetch without the asset, saved with allKeys, keeps the asset too.
        let partial = try await Self.partial(record.recordID, keys: ["title"], in: database)
        partial["title"] = "partial"
        let results = await AdversarialKit.modify(database, saving: [partial], policy: policy)
        #expect(OpsTestKit.code(results.saves[record.recordID]) == nil)
        #expect(try await Self.storedAssetContent(record.recordID, "image", in: database) == "asset content")
    }

    /// An asset fetched from one record and set on another is a copy of the content: deleting
    /// or changing the source record must not take the copy's content with it.
    @Test func anAssetCopiedToAnotherRecordSurvivesTheSource() async throws {
        let container = OpsTestKit.makeContainer()
        let database = container.privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        let file = try Self.assetFile("shared content")
        defer { try? FileManager.default.removeItem(at: file) }
        let source = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "source", zoneID: zoneID))
        source["image"] = CKAsset(fileURL: file)
        try await OpsTestKit.save([source], in: database)

        let fetched = try await database.record(for: source.recordID)
        let copy = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "copy", zoneID: zoneID))
        copy["image"] = fetched["image"]
        let elsewhere = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "public-copy"))
        elsewhere["image"] = fetched["image"]
        try await OpsTestKit.save([copy], in: database)
        try await OpsTestKit.save([elsewhere], in: container.publicCloudDatabase)

        _ = try await database.deleteRecord(withID: source.recordID)
        #expect(try await Self.storedAssetContent(copy.recordID, "image", in: database) == "shared content")
        #expect(
            try await Self.storedAssetContent(elsewhere.recordID, "image", in: container.publicCloudDatabase)
                == "shared content")
    }

    /// The record a save returns carries its assets' content: its file exists and holds the
    /// bytes just saved (they were read outside the saving transaction, before its commit).
    @Test func theRecordReturnedByASaveCarriesItsAssetContent() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let file = try Self.assetFile("fresh content")
        defer { try? FileManager.default.removeItem(at: file) }
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "p"))
        record["image"] = CKAsset(fileURL: file)
        record["gallery"] = [CKAsset(fileURL: file)]
        let saved = try await database.save(record)
        let url = try #require((saved["image"] as? CKAsset)?.fileURL)
        #expect((try? Data(contentsOf: url)) == Data("fresh content".utf8))
        let listed = try #require((saved["gallery"] as? [CKAsset])?.first?.fileURL)
        #expect((try? Data(contentsOf: listed)) == Data("fresh content".utf8))
    }

    @Test func replacingAnAssetStoresTheNewContent() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        let first = try Self.assetFile("one")
        let second = try Self.assetFile("two")
        defer {
            try? FileManager.default.removeItem(at: first)
            try? FileManager.default.removeItem(at: second)
        }
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "p", zoneID: zoneID))
        record["image"] = CKAsset(fileURL: first)
        try await OpsTestKit.save([record], in: database)
        let fetched = try await database.record(for: record.recordID)
        fetched["image"] = CKAsset(fileURL: second)
        _ = try await database.save(fetched)
        #expect(try await Self.storedAssetContent(record.recordID, "image", in: database) == "two")
    }
}

/// Delete then re-create the same record ID, as change fetches see it.
@Suite struct AdversarialRecreateTests {
    @Test func aRecordDeletedAndRecreatedIsReportedOnceAsChanged() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        let id = CKRecord.ID(recordName: "phoenix", zoneID: zoneID)
        let original = CKRecord(recordType: "Note", recordID: id)
        original["life"] = 1
        let stored = try #require(try await OpsTestKit.save([original], in: database).first)
        let beforeDelete = try await database.recordZoneChanges(inZoneWith: zoneID, since: nil).changeToken

        _ = try await database.deleteRecord(withID: id)
        let afterDelete = try await database.recordZoneChanges(inZoneWith: zoneID, since: beforeDelete)
        #expect(afterDelete.deletions.map(\.recordID) == [id])
        #expect(afterDelete.deletions.map(\.recordType) == ["Note"])

        // The saved copy carries a change tag: saving it again is not a re-creation (decision
        // 0004: unknownItem, "save a new CKRecord").
        stored["life"] = 9
        let resave = await #expect(throws: CKError.self) { try await database.save(stored) }
        #expect(resave?.code == .unknownItem)
        #expect(resave?.localizedDescription.contains("phoenix") == true)
        #expect(
            try await database.recordZoneChanges(inZoneWith: zoneID, since: afterDelete.changeToken)
                .modificationResultsByID.isEmpty)

        let again = CKRecord(recordType: "Task", recordID: id)
        again["life"] = 2
        let saved = try await database.save(again)
        #expect(saved.recordChangeTag != nil)

        for token in [beforeDelete, afterDelete.changeToken] {
            let changes = try await database.recordZoneChanges(inZoneWith: zoneID, since: token)
            #expect(changes.deletions.isEmpty, "a re-created record must not be reported deleted")
            #expect(changes.modificationResultsByID.count == 1)
            let record = try #require(try changes.modificationResultsByID[id]?.get().record)
            #expect(record["life"] as? Int == 2)
            #expect(record.recordType == "Task")
        }
        let all = try await database.recordZoneChanges(inZoneWith: zoneID, since: nil)
        #expect(all.modificationResultsByID.count == 1 && all.deletions.isEmpty)

        // Walking the zone with a limit of one change per batch also lists it once.
        var token: CKServerChangeToken? = beforeDelete
        var seen: [CKRecord.ID] = []
        var deleted: [CKRecord.ID] = []
        repeat {
            let batch = try await database.recordZoneChanges(inZoneWith: zoneID, since: token, resultsLimit: 1)
            seen += batch.modificationResultsByID.keys
            deleted += batch.deletions.map(\.recordID)
            token = batch.changeToken
            if !batch.moreComing { break }
        } while true
        #expect(seen == [id] && deleted.isEmpty)
    }

    /// Deleting a record and re-creating it, many times, never grows what a fetch reports.
    @Test func repeatedDeleteAndRecreateLeavesOneEntry() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        let id = CKRecord.ID(recordName: "cycle", zoneID: zoneID)
        let start = try await database.recordZoneChanges(inZoneWith: zoneID, since: nil).changeToken
        for round in 0..<5 {
            let record = CKRecord(recordType: "Note", recordID: id)
            record["round"] = round
            _ = try await database.save(record)
            if round < 4 { _ = try await database.deleteRecord(withID: id) }
        }
        let changes = try await database.recordZoneChanges(inZoneWith: zoneID, since: start)
        #expect(changes.modificationResultsByID.count == 1 && changes.deletions.isEmpty)
        #expect(try changes.modificationResultsByID[id]?.get().record["round"] as? Int == 4)
    }
}
