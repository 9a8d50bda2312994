import Foundation
import Stratus
import Testing

/// Review of key layout v2 (decision 0008): the record lives in its change-log entry, the
/// record key is a pointer, tombstones are deleted pointers, value-index entries carry the
/// record's change position. Every path that moves a record must keep the pointer, the entry
/// and every index entry of the record consistent.
@Suite struct KeyLayoutV2ReviewTests {
    typealias Kit = OpsTestKit

    static func sorted(_ type: String, by key: String, ascending: Bool) -> CKQuery {
        let query = CKQuery(recordType: type, predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: key, ascending: ascending)]
        return query
    }

    /// Every change of `zoneID` after `token`, following `moreComing` with `limit` per batch:
    /// the changed records in delivery order, the deletions, and the last token.
    static func changes(
        in zoneID: CKRecordZone.ID, since token: CKServerChangeToken?, limit: Int, desiredKeys: [String]? = nil,
        in database: CKDatabase
    ) async throws -> (changed: [CKRecord], deleted: [CKDatabase.RecordZoneChange.Deletion], token: CKServerChangeToken)
    {
        var changed: [CKRecord] = []
        var deleted: [CKDatabase.RecordZoneChange.Deletion] = []
        var token = token
        var batches = 0
        while true {
            let batch = try await database.recordZoneChanges(
                inZoneWith: zoneID, since: token, desiredKeys: desiredKeys, resultsLimit: limit)
            changed += try batch.modificationResultsByID.values.map { try $0.get().record }
                .sorted { $0.recordID.recordName < $1.recordID.recordName }
            deleted += batch.deletions
            token = batch.changeToken
            batches += 1
            if !batch.moreComing || batches > 500 { break }
        }
        return (changed, deleted, token!)
    }

    /// The live state of `ids`, fetched by ID.
    static func fetched(_ ids: [CKRecord.ID], in database: CKDatabase) async throws -> [String: CKRecord] {
        var result: [String: CKRecord] = [:]
        for (id, outcome) in try await database.records(for: ids) {
            if case .success(let record) = outcome { result[id.recordName] = record }
        }
        return result
    }

    /// A sorted walk must return exactly the live records of `names`, each once, in its latest
    /// state (the change tag a fetch by ID returns).
    static func expectSortedWalk(
        _ type: String, keys: [String], zoneID: CKRecordZone.ID, live: Set<String>, in database: CKDatabase,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let latest = try await fetched(live.map { CKRecord.ID(recordName: $0, zoneID: zoneID) }, in: database)
        #expect(Set(latest.keys) == live, sourceLocation: sourceLocation)
        for key in keys {
            for ascending in [true, false] {
                let walked = try await Kit.walk(
                    sorted(type, by: key, ascending: ascending), zoneID: zoneID, limit: 3, in: database)
                let names = walked.map(\.recordID.recordName)
                #expect(names.count == live.count, "sort by \(key)", sourceLocation: sourceLocation)
                #expect(Set(names) == live, "sort by \(key)", sourceLocation: sourceLocation)
                for record in walked {
                    #expect(
                        record.recordChangeTag == latest[record.recordID.recordName]?.recordChangeTag,
                        "sort by \(key): \(record.recordID.recordName) is not in its latest state",
                        sourceLocation: sourceLocation)
                }
            }
        }
    }

    // MARK: Sorted queries: index entries carry the change position

    /// Every kind of change after the indexes exist — one field, another field, only the
    /// parent, an unchanged re-save, a field removed, a cascade, a delete and re-create — must
    /// rewrite the record's entries in every index of its type, not only the changed field's.
    @Test func sortedQueriesSeeEveryKindOfChangeThroughEveryIndex() async throws {
        let database = Kit.makeContainer().privateCloudDatabase
        let zone = try await Kit.makeZone("Z", in: database)
        let folder = CKRecord(recordType: "Folder", recordID: CKRecord.ID(recordName: "folder", zoneID: zone))
        let owner = CKRecord(recordType: "Folder", recordID: CKRecord.ID(recordName: "owner", zoneID: zone))
        try await Kit.save([folder, owner], in: database)
        var docs: [CKRecord] = []
        for n in 0..<8 {
            let doc = CKRecord(recordType: "Doc", recordID: CKRecord.ID(recordName: "d\(n)", zoneID: zone))
            doc["a"] = n
            doc["b"] = "s\(7 - n)"
            doc["c"] = n % 3
            if n == 5 { doc["owner"] = CKRecord.Reference(recordID: owner.recordID, action: .deleteSelf) }
            docs.append(doc)
        }
        let saved = try await Kit.save(docs, in: database)
        let keys = ["a", "b", "c", "creationDate", "modificationDate"]
        let all = Set((0..<8).map { "d\($0)" })
        // Builds every index.
        try await Self.expectSortedWalk("Doc", keys: keys, zoneID: zone, live: all, in: database)

        saved[1]["a"] = 100  // one indexed field
        saved[2]["b"] = "zzz"  // another
        saved[3].setParent(folder.recordID)  // only the parent
        // saved[4]: re-saved unchanged
        saved[6]["c"] = nil  // a field removed
        try await Kit.save([saved[1], saved[2], saved[3], saved[4], saved[6]], in: database)
        // A cascade (d5 dies with its owner), and a delete then re-create of d7.
        _ = try await database.modifyRecords(saving: [], deleting: [owner.recordID, saved[7].recordID])
        let again = CKRecord(recordType: "Doc", recordID: saved[7].recordID)
        again["a"] = -7
        try await Kit.save([again], in: database)

        let live = all.subtracting(["d5"])
        try await Self.expectSortedWalk("Doc", keys: keys, zoneID: zone, live: live, in: database)
        let byA = try await Kit.walk(
            Self.sorted("Doc", by: "a", ascending: true), zoneID: zone, limit: 2, in: database)
        #expect(byA.map(\.recordID.recordName) == ["d7", "d0", "d2", "d3", "d4", "d6", "d1"])
        let d6 = byA.first { $0.recordID.recordName == "d6" }
        #expect(d6?["c"] as? Int == nil)
        #expect(byA.first { $0.recordID.recordName == "d3" }?.parent?.recordID == folder.recordID)
        // d7 came back without b and c: they sort first (null).
        let byC = try await Kit.walk(
            Self.sorted("Doc", by: "c", ascending: true), zoneID: zone, limit: 2, in: database)
        #expect(Array(byC.map(\.recordID.recordName).prefix(2)) == ["d6", "d7"])
    }

    /// Each save policy moves the record; the index entries must follow, also for the fields
    /// the save did not send.
    @Test(arguments: [
        CKModifyRecordsOperation.RecordSavePolicy.changedKeys, .allKeys, .ifServerRecordUnchanged,
    ])
    func everySavePolicyKeepsTheIndexesPointingAtTheLatestEntry(
        policy: CKModifyRecordsOperation.RecordSavePolicy
    ) async throws {
        let database = Kit.makeContainer().privateCloudDatabase
        let zone = try await Kit.makeZone("Z", in: database)
        var records: [CKRecord] = []
        for n in 0..<5 {
            let record = CKRecord(recordType: "Row", recordID: CKRecord.ID(recordName: "r\(n)", zoneID: zone))
            record["x"] = n
            record["y"] = "y\(n)"
            records.append(record)
        }
        let saved = try await Kit.save(records, in: database)
        let all = Set(records.map(\.recordID.recordName))
        try await Self.expectSortedWalk("Row", keys: ["x", "y"], zoneID: zone, live: all, in: database)
        // A fresh object (no change tag) for changedKeys/allKeys, the server copy otherwise.
        let update =
            policy == .ifServerRecordUnchanged
            ? saved[2] : CKRecord(recordType: "Row", recordID: saved[2].recordID)
        update["z"] = 1.5
        let result = try await database.modifyRecords(saving: [update], deleting: [], savePolicy: policy)
        _ = try result.saveResults[update.recordID]?.get()
        try await Self.expectSortedWalk("Row", keys: ["x", "y", "z"], zoneID: zone, live: all, in: database)
    }

    /// An index built from the change log after records changed, then maintained while the
    /// records (and records of another type with the same field names) keep changing.
    @Test func anIndexBuiltLateThenMaintained() async throws {
        let database = Kit.makeContainer().privateCloudDatabase
        let zone = try await Kit.makeZone("Z", in: database)
        var records: [CKRecord] = []
        for n in 0..<12 {
            let record = CKRecord(
                recordType: n % 2 == 0 ? "Even" : "Odd", recordID: CKRecord.ID(recordName: "k\(n)", zoneID: zone))
            record["rank"] = 12 - n
            records.append(record)
        }
        var saved = try await Kit.save(records, in: database)
        for _ in 0..<3 {
            for record in saved { record["rank"] = (record["rank"] as? Int ?? 0) + 1 }
            saved = try await Kit.save(saved, in: database)
        }
        _ = try await database.modifyRecords(saving: [], deleting: [saved[0].recordID, saved[1].recordID])
        let even = Set(stride(from: 2, to: 12, by: 2).map { "k\($0)" })
        let odd = Set(stride(from: 3, to: 12, by: 2).map { "k\($0)" })
        try await Self.expectSortedWalk("Even", keys: ["rank"], zoneID: zone, live: even, in: database)
        // Both types change after Even's index exists; Odd's index is built afterwards.
        saved = Array(saved.dropFirst(2))
        for record in saved { record["rank"] = 0 }
        saved = try await Kit.save(saved, in: database)
        try await Self.expectSortedWalk("Odd", keys: ["rank"], zoneID: zone, live: odd, in: database)
        for record in saved { record["note"] = "n" }
        _ = try await Kit.save(saved, in: database)
        try await Self.expectSortedWalk("Even", keys: ["rank"], zoneID: zone, live: even, in: database)
        try await Self.expectSortedWalk("Odd", keys: ["rank"], zoneID: zone, live: odd, in: database)
    }

    /// More records with the same (missing) value than one scan of the index returns, changed
    /// between pages of a sorted walk.
    @Test func aLargeGroupOfEqualValuesChangedBetweenPages() async throws {
        let database = Kit.makeContainer().privateCloudDatabase
        let zone = try await Kit.makeZone("Z", in: database)
        var records: [CKRecord] = []
        for n in 0..<300 {
            let record = CKRecord(
                recordType: "Big", recordID: CKRecord.ID(recordName: String(format: "b%03d", n), zoneID: zone))
            if n >= 290 { record["v"] = n }
            record["other"] = n
            records.append(record)
        }
        let saved = try await Kit.save(records, in: database)
        let query = Self.sorted("Big", by: "v", ascending: true)
        var page = try await database.records(matching: query, inZoneWith: zone, resultsLimit: 50)
        var names = try page.matchResults.map { try $0.1.get().recordID.recordName }
        // Between pages: records ahead of the cursor change (without their sort value) or go.
        for n in [100, 200, 295] { saved[n]["other"] = -1 }
        try await Kit.save([saved[100], saved[200], saved[295]], in: database)
        _ = try await database.modifyRecords(saving: [], deleting: [saved[150].recordID, saved[296].recordID])
        while let cursor = page.queryCursor {
            page = try await database.records(continuingMatchFrom: cursor, resultsLimit: 50)
            names += try page.matchResults.map { try $0.1.get().recordID.recordName }
        }
        let expected = records.map(\.recordID.recordName).filter { $0 != "b150" && $0 != "b296" }
        #expect(names == expected)
    }

    // MARK: Change fetches

    /// Records changed several times, deleted, deleted and re-created (also as another type),
    /// cascaded, and created after the token: each appears once, in its latest state, across
    /// small batches; deletions only for records that are gone.
    @Test func aChangeFetchAfterEveryKindOfChange() async throws {
        let database = Kit.makeContainer().privateCloudDatabase
        let zone = try await Kit.makeZone("Z", in: database)
        var records: [CKRecord] = []
        for n in 0..<20 {
            let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "i\(n)", zoneID: zone))
            record["n"] = n
            if n == 11 { record["owner"] = CKRecord.Reference(recordID: records[10].recordID, action: .deleteSelf) }
            if n == 12 { record["owner"] = CKRecord.Reference(recordID: records[11].recordID, action: .deleteSelf) }
            records.append(record)
        }
        var saved = try await Kit.save(records, in: database)
        let token = try await database.recordZoneChanges(inZoneWith: zone, since: nil).changeToken
        for round in 1...3 {
            saved[0]["n"] = 100 + round
            saved[0] = try await Kit.save([saved[0]], in: database)[0]
        }
        _ = try await database.modifyRecords(
            saving: [], deleting: [saved[1].recordID, saved[2].recordID, saved[3].recordID, saved[10].recordID])
        let again = CKRecord(recordType: "Item", recordID: saved[2].recordID)
        again["n"] = 2
        let otherType = CKRecord(recordType: "Other", recordID: saved[3].recordID)
        let fresh = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "i99", zoneID: zone))
        try await Kit.save([again, otherType, fresh], in: database)
        // Deleted then re-created then deleted again.
        _ = try await database.modifyRecords(saving: [], deleting: [again.recordID])

        for limit in [1, 2, 3, 400] {
            let result = try await Self.changes(in: zone, since: token, limit: limit, in: database)
            let changedNames = result.changed.map(\.recordID.recordName)
            #expect(changedNames.count == Set(changedNames).count, "limit \(limit): a record appears twice")
            #expect(Set(changedNames) == ["i0", "i3", "i99"], "limit \(limit)")
            #expect(result.changed.first { $0.recordID.recordName == "i0" }?["n"] as? Int == 103)
            #expect(result.changed.first { $0.recordID.recordName == "i3" }?.recordType == "Other")
            let deletedNames = result.deleted.map(\.recordID.recordName)
            #expect(deletedNames.count == Set(deletedNames).count, "limit \(limit): a deletion appears twice")
            #expect(Set(deletedNames) == ["i1", "i2", "i10", "i11", "i12"], "limit \(limit)")
            #expect(result.deleted.allSatisfy { $0.recordType == "Item" })
            // The latest state: the change tag a fetch by ID returns.
            let latest = try await Self.fetched(result.changed.map(\.recordID), in: database)
            for record in result.changed {
                #expect(record.recordChangeTag == latest[record.recordID.recordName]?.recordChangeTag)
            }
            // Nothing more after the last token.
            let tail = try await database.recordZoneChanges(inZoneWith: zone, since: result.token)
            #expect(tail.modificationResultsByID.isEmpty && tail.deletions.isEmpty && !tail.moreComing)
        }
        // From nil: every live record once. Deletions of records the client never saw may be
        // reported by the later batches (invariant 15), but only of records that existed.
        let everything = try await Self.changes(in: zone, since: nil, limit: 4, in: database)
        let live = Set((0..<20).map { "i\($0)" }).subtracting(["i1", "i2", "i10", "i11", "i12"]).union(["i99"])
        #expect(everything.changed.count == live.count)
        #expect(Set(everything.changed.map(\.recordID.recordName)) == live)
        #expect(Set(everything.deleted.map(\.recordID.recordName)).isSubset(of: ["i1", "i2", "i10", "i11", "i12"]))
        let unlimited = try await database.recordZoneChanges(inZoneWith: zone, since: nil)
        #expect(unlimited.deletions.isEmpty && !unlimited.moreComing)
        // desiredKeys still applies to records read from the change log.
        let keysOnly = try await Self.changes(in: zone, since: nil, limit: 5, desiredKeys: ["owner"], in: database)
        #expect(keysOnly.changed.allSatisfy { $0["n"] == nil })
    }

    /// A token taken between two changes of the same record: the second change is delivered
    /// from it, the first is not delivered again from the token after it.
    @Test func tokensTakenMidStreamAreExactResumePoints() async throws {
        let database = Kit.makeContainer().privateCloudDatabase
        let zone = try await Kit.makeZone("Z", in: database)
        var records: [CKRecord] = []
        for n in 0..<10 {
            let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "m\(n)", zoneID: zone))
            record["n"] = n
            records.append(record)
        }
        var saved = try await Kit.save(records, in: database)
        // Take a token after the first 4 changes.
        let first = try await database.recordZoneChanges(inZoneWith: zone, since: nil, resultsLimit: 4)
        #expect(first.moreComing)
        let seen = Set(first.modificationResultsByID.keys.map(\.recordName))
        // Change one record already delivered and one not yet delivered.
        let delivered = saved.firstIndex { seen.contains($0.recordID.recordName) }!
        let pending = saved.firstIndex { !seen.contains($0.recordID.recordName) }!
        saved[delivered]["n"] = -1
        saved[pending]["n"] = -2
        saved = try await Kit.save(saved, in: database)
        let rest = try await Self.changes(in: zone, since: first.changeToken, limit: 3, in: database)
        #expect(Set(rest.changed.map(\.recordID.recordName)) == Set(records.map(\.recordID.recordName)))
        #expect(rest.changed.count == 10)
        #expect(rest.changed.first { $0.recordID == saved[pending].recordID }?["n"] as? Int == -2)
    }

    // MARK: Unsorted queries walk pointers

    /// Types interleaved in one zone; between pages, records ahead of the cursor are deleted,
    /// re-created as another type, and new ones inserted; deleted records never come back.
    @Test func unsortedPagesOverInterleavedTypesWithChangesBetweenPages() async throws {
        let database = Kit.makeContainer().privateCloudDatabase
        let zone = try await Kit.makeZone("Z", in: database)
        var records: [CKRecord] = []
        for n in 0..<120 {
            let record = CKRecord(
                recordType: n % 3 == 0 ? "Cat" : "Dog",
                recordID: CKRecord.ID(recordName: String(format: "p%03d", n), zoneID: zone))
            record["n"] = n
            records.append(record)
        }
        try await Kit.save(records, in: database)
        let query = CKQuery(recordType: "Cat", predicate: NSPredicate(value: true))
        var page = try await database.records(matching: query, inZoneWith: zone, resultsLimit: 7)
        var names = try page.matchResults.map { try $0.1.get().recordID.recordName }
        #expect(names == ["p000", "p003", "p006", "p009", "p012", "p015", "p018"])
        // Ahead of the cursor: p030 deleted, p033 re-created as a Dog, p040 (a Dog) re-created
        // as a Cat, p050x inserted as a Cat, p060 a Cat deleted and re-created as a Cat.
        _ = try await database.modifyRecords(
            saving: [], deleting: ["p030", "p033", "p040", "p060"].map { CKRecord.ID(recordName: $0, zoneID: zone) })
        let dog = CKRecord(recordType: "Dog", recordID: CKRecord.ID(recordName: "p033", zoneID: zone))
        let cat = CKRecord(recordType: "Cat", recordID: CKRecord.ID(recordName: "p040", zoneID: zone))
        let inserted = CKRecord(recordType: "Cat", recordID: CKRecord.ID(recordName: "p050x", zoneID: zone))
        let back = CKRecord(recordType: "Cat", recordID: CKRecord.ID(recordName: "p060", zoneID: zone))
        try await Kit.save([dog, cat, inserted, back], in: database)
        while let cursor = page.queryCursor {
            page = try await database.records(continuingMatchFrom: cursor, resultsLimit: 7)
            names += try page.matchResults.map { try $0.1.get().recordID.recordName }
        }
        var expected = stride(from: 0, to: 120, by: 3).map { String(format: "p%03d", $0) }
        expected.removeAll { $0 == "p030" || $0 == "p033" }
        expected += ["p040", "p050x"]
        #expect(names == expected.sorted())
        // A type with no record in this zone: nothing, and no cursor.
        let other = CKRecord(recordType: "Bird", recordID: CKRecord.ID(recordName: "only"))
        try await Kit.save([other], in: database)
        let birds = try await database.records(
            matching: CKQuery(recordType: "Bird", predicate: NSPredicate(value: true)), inZoneWith: zone,
            resultsLimit: 5)
        #expect(birds.matchResults.isEmpty && birds.queryCursor == nil)
        // Zone-less: the one Bird, from the default zone.
        let anywhere = try await database.records(
            matching: CKQuery(recordType: "Bird", predicate: NSPredicate(value: true)), inZoneWith: nil)
        #expect(anywhere.matchResults.map(\.0) == [other.recordID])
    }

    // MARK: Pointers and entries on every path

    /// A cascade along a chain, then purging the history, then re-creating some of the
    /// deleted records (one as another type): fetches, queries and change fetches agree.
    @Test func cascadePurgeAndRecreate() async throws {
        let database = Kit.makeContainer().privateCloudDatabase
        let zone = try await Kit.makeZone("Z", in: database)
        func id(_ name: String) -> CKRecord.ID { CKRecord.ID(recordName: name, zoneID: zone) }
        let root = CKRecord(recordType: "Node", recordID: id("root"))
        root["depth"] = 0
        var chain = [root]
        for depth in 1...4 {
            let node = CKRecord(recordType: "Node", recordID: id("n\(depth)"))
            node["depth"] = depth
            node["up"] = CKRecord.Reference(recordID: chain[depth - 1].recordID, action: .deleteSelf)
            chain.append(node)
        }
        // A cycle hanging off the chain, and a loose reference that survives.
        let cycleA = CKRecord(recordType: "Node", recordID: id("ca"))
        let cycleB = CKRecord(recordType: "Node", recordID: id("cb"))
        cycleA["up"] = CKRecord.Reference(recordID: chain[2].recordID, action: .deleteSelf)
        cycleA["peer"] = CKRecord.Reference(recordID: cycleB.recordID, action: .deleteSelf)
        cycleB["peer"] = CKRecord.Reference(recordID: cycleA.recordID, action: .deleteSelf)
        let loose = CKRecord(recordType: "Node", recordID: id("loose"))
        loose["up"] = CKRecord.Reference(recordID: root.recordID, action: .none)
        loose["depth"] = 9
        try await Kit.save(chain + [cycleA, cycleB, loose], in: database)
        try await Self.expectSortedWalk(
            "Node", keys: ["depth"], zoneID: zone, live: ["root", "n1", "n2", "n3", "n4", "ca", "cb", "loose"],
            in: database)
        let token = try await database.recordZoneChanges(inZoneWith: zone, since: nil).changeToken

        _ = try await database.modifyRecords(saving: [], deleting: [id("n1")])
        let afterCascade = try await Self.changes(in: zone, since: token, limit: 2, in: database)
        #expect(Set(afterCascade.deleted.map(\.recordID.recordName)) == ["n1", "n2", "n3", "n4", "ca", "cb"])
        #expect(afterCascade.deleted.count == 6)
        #expect(afterCascade.changed.isEmpty)
        try await Self.expectSortedWalk("Node", keys: ["depth"], zoneID: zone, live: ["root", "loose"], in: database)

        try database.purgeChangeHistory(in: zone)
        let n2 = CKRecord(recordType: "Node", recordID: id("n2"))
        n2["depth"] = 2
        let n3 = CKRecord(recordType: "Leaf", recordID: id("n3"))
        n3["depth"] = 3
        try await Kit.save([n2, n3], in: database)
        let fromNil = try await Self.changes(in: zone, since: nil, limit: 400, in: database)
        #expect(Set(fromNil.changed.map(\.recordID.recordName)) == ["root", "loose", "n2", "n3"])
        #expect(fromNil.changed.count == 4)
        try await Self.expectSortedWalk(
            "Node", keys: ["depth"], zoneID: zone, live: ["root", "loose", "n2"], in: database)
        try await Self.expectSortedWalk("Leaf", keys: ["depth"], zoneID: zone, live: ["n3"], in: database)
        let unsorted = try await database.records(
            matching: CKQuery(recordType: "Node", predicate: NSPredicate(value: true)), inZoneWith: zone)
        #expect(unsorted.matchResults.map(\.0.recordName) == ["loose", "n2", "root"])
        // Deleting a record re-created after the purge works and is reported.
        let beforeDelete = fromNil.token
        _ = try await database.modifyRecords(saving: [], deleting: [id("n2"), id("n3")])
        let deletions = try await Self.changes(in: zone, since: beforeDelete, limit: 5, in: database)
        #expect(Set(deletions.deleted.map(\.recordID.recordName)) == ["n2", "n3"])
        #expect(Set(deletions.deleted.map(\.recordType)) == ["Node", "Leaf"])
    }

    /// A zone deleted and re-created under the same name starts empty: no old record through
    /// any read path, and its indexes hold only the new records.
    @Test func aZoneDeletedAndRecreatedStartsEmptyOnEveryPath() async throws {
        let database = Kit.makeContainer().privateCloudDatabase
        let zone = try await Kit.makeZone("Z", in: database)
        var records: [CKRecord] = []
        for n in 0..<6 {
            let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "z\(n)", zoneID: zone))
            record["n"] = n
            records.append(record)
        }
        try await Kit.save(records, in: database)
        try await Self.expectSortedWalk(
            "Item", keys: ["n"], zoneID: zone, live: Set(records.map(\.recordID.recordName)), in: database)
        _ = try await database.deleteRecordZone(withID: zone)
        let zoneAgain = try await Kit.makeZone("Z", in: database)
        let newcomer = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "z3", zoneID: zoneAgain))
        newcomer["n"] = 33
        try await Kit.save([newcomer], in: database)
        try await Self.expectSortedWalk("Item", keys: ["n"], zoneID: zoneAgain, live: ["z3"], in: database)
        let changes = try await Self.changes(in: zoneAgain, since: nil, limit: 10, in: database)
        #expect(changes.changed.map(\.recordID.recordName) == ["z3"])
        let anyZone = try await Kit.walk(
            Self.sorted("Item", by: "n", ascending: true), zoneID: nil, limit: 4, in: database)
        #expect(anyZone.map(\.recordID.recordName) == ["z3"])
    }

    /// A non-atomic request where some saves and deletes fail: the successful ones are
    /// written completely (pointer, entry, every index), the failed ones not at all.
    @Test func partialFailuresLeaveConsistentRecords() async throws {
        let database = Kit.makeContainer().privateCloudDatabase
        let zone = try await Kit.makeZone("Z", in: database)
        var records: [CKRecord] = []
        for n in 0..<6 {
            let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "q\(n)", zoneID: zone))
            record["n"] = n
            records.append(record)
        }
        let saved = try await Kit.save(records, in: database)
        try await Self.expectSortedWalk(
            "Item", keys: ["n"], zoneID: zone, live: Set(records.map(\.recordID.recordName)), in: database)
        saved[0]["n"] = 10  // succeeds
        saved[1]["n"] = "not a number"  // fails: type mismatch
        let stale = CKRecord(recordType: "Item", recordID: saved[2].recordID)  // fails: exists
        stale["n"] = 12
        let orphan = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "q9", zoneID: zone))
        orphan.setParent(CKRecord.ID(recordName: "nowhere", zoneID: zone))  // fails: no parent
        let result = try await database.modifyRecords(
            saving: [saved[0], saved[1], stale, orphan],
            deleting: [saved[3].recordID, CKRecord.ID(recordName: "missing", zoneID: zone)],
            atomically: false)
        #expect(Kit.code(result.saveResults[saved[0].recordID]) == nil)
        #expect(Kit.code(result.saveResults[saved[1].recordID]) == .invalidArguments)
        #expect(Kit.code(result.saveResults[stale.recordID]) == .serverRecordChanged)
        #expect(Kit.code(result.saveResults[orphan.recordID]) == .referenceViolation)
        #expect(Kit.code(result.deleteResults[saved[3].recordID]) == nil)
        let live: Set<String> = ["q0", "q1", "q2", "q4", "q5"]
        try await Self.expectSortedWalk("Item", keys: ["n"], zoneID: zone, live: live, in: database)
        let latest = try await Self.fetched(live.map { CKRecord.ID(recordName: $0, zoneID: zone) }, in: database)
        #expect(latest["q0"]?["n"] as? Int == 10)
        #expect(latest["q1"]?["n"] as? Int == 1)
        #expect(latest["q2"]?["n"] as? Int == 2)
        // The conflict carried the stored record in its latest state.
        if case .failure(let error as CKError)? = result.saveResults[stale.recordID] {
            #expect(error.serverRecord?.recordChangeTag == latest["q2"]?.recordChangeTag)
            #expect(error.serverRecord?["n"] as? Int == 2)
        }
    }

    /// A conflict after several updates returns the server record in its latest state, and
    /// saving that record (merged) succeeds and is what every read path sees.
    @Test func aConflictReturnsTheLatestServerRecord() async throws {
        let database = Kit.makeContainer().privateCloudDatabase
        let zone = try await Kit.makeZone("Z", in: database)
        let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "c", zoneID: zone))
        record["n"] = 0
        let first = try await Kit.save([record], in: database)[0]
        var current = first
        for n in 1...3 {
            let copy = current.copy() as! CKRecord
            copy["n"] = n
            current = try await Kit.save([copy], in: database)[0]
        }
        first["n"] = -1
        let result = try await database.modifyRecords(saving: [first], deleting: [], atomically: false)
        guard case .failure(let error as CKError)? = result.saveResults[first.recordID] else {
            Issue.record("a stale change tag must conflict")
            return
        }
        #expect(error.code == .serverRecordChanged)
        let server = try #require(error.serverRecord)
        #expect(server.recordChangeTag == current.recordChangeTag)
        #expect(server["n"] as? Int == 3)
        server["n"] = 4
        try await Kit.save([server], in: database)
        try await Self.expectSortedWalk("Item", keys: ["n"], zoneID: zone, live: ["c"], in: database)
        let fetched = try await database.record(for: record.recordID)
        #expect(fetched["n"] as? Int == 4)
    }

    // MARK: The modify path's bookkeeping (S2)

    /// Items of several zones interleaved in one atomic request: each zone is decided on its
    /// own (an atomic failure in B does not stop A or the default zone), every item gets its
    /// own result, and the same name may appear once per zone.
    @Test func aRequestInterleavingZonesIsDecidedZoneByZone() async throws {
        let database = Kit.makeContainer().privateCloudDatabase
        let a = try await Kit.makeZone("A", in: database)
        let b = try await Kit.makeZone("B", in: database)
        let home = CKRecordZone.ID.default
        func item(_ name: String, _ zone: CKRecordZone.ID, _ n: any CKRecordValue) -> CKRecord {
            let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: name, zoneID: zone))
            record["n"] = n
            return record
        }
        try await Kit.save([item("x0", a, 0), item("y0", b, 0)], in: database)
        try await Kit.save([item("z0", home, 0)], in: database)
        let saves = [
            item("x1", a, 1), item("y1", b, 1), item("x2", a, 2), item("z1", home, 1), item("y2", b, "text"),
            item("same", a, 3), item("same", b, 3),
        ]
        // Equal zone IDs that are different objects.
        let deletes = [
            CKRecord.ID(recordName: "x0", zoneID: CKRecordZone.ID(zoneName: "A")),
            CKRecord.ID(recordName: "y0", zoneID: CKRecordZone.ID(zoneName: "B")),
            CKRecord.ID(recordName: "z0", zoneID: home),
        ]
        let op = CKModifyRecordsOperation(recordsToSave: saves, recordIDsToDelete: deletes)
        op.isAtomic = true
        let saved = OpsLog<(CKRecord.ID, CKError.Code?)>()
        let deleted = OpsLog<(CKRecord.ID, CKError.Code?)>()
        op.perRecordSaveBlock = { id, result in saved.append((id, Kit.code(result))) }
        op.perRecordDeleteBlock = { id, result in deleted.append((id, Kit.code(result))) }
        await Kit.run(op, on: database)
        let saveCodes = Dictionary(saved.all.map { ("\($0.0.zoneID.zoneName)/\($0.0.recordName)", $0.1) }) { x, _ in x }
        let deleteCodes = Dictionary(deleted.all.map { ("\($0.0.zoneID.zoneName)/\($0.0.recordName)", $0.1) }) { x, _ in
            x
        }
        #expect(saved.all.count == saves.count && deleted.all.count == deletes.count)
        #expect(saveCodes["A/x1"] == .some(nil) && saveCodes["A/x2"] == .some(nil) && saveCodes["A/same"] == .some(nil))
        #expect(saveCodes["B/y2"] == .some(.invalidArguments))
        #expect(saveCodes["B/y1"] == .some(.batchRequestFailed) && saveCodes["B/same"] == .some(.batchRequestFailed))
        #expect(saveCodes["_defaultZone/z1"] == .some(nil))
        #expect(deleteCodes["A/x0"] == .some(nil) && deleteCodes["_defaultZone/z0"] == .some(nil))
        #expect(deleteCodes["B/y0"] == .some(.batchRequestFailed))

        let inA = try await database.records(
            matching: CKQuery(recordType: "Item", predicate: NSPredicate(value: true)), inZoneWith: a)
        #expect(inA.matchResults.map(\.0.recordName) == ["same", "x1", "x2"])
        let inB = try await Kit.walk(Self.sorted("Item", by: "n", ascending: true), zoneID: b, limit: 1, in: database)
        #expect(inB.map(\.recordID.recordName) == ["y0"])
        let home2 = try await Self.fetched(
            [CKRecord.ID(recordName: "z0"), CKRecord.ID(recordName: "z1")], in: database)
        #expect(Set(home2.keys) == ["z1"])

        // The same ID twice (equal zone IDs, different objects), items of another zone between.
        await #expect {
            _ = try await database.modifyRecords(
                saving: [item("w", a, 1), item("w", b, 1)],
                deleting: [CKRecord.ID(recordName: "w", zoneID: CKRecordZone.ID(zoneName: "A"))], atomically: false)
        } throws: { error in
            (error as? CKError)?.code == .invalidArguments
        }
    }
}
