import Foundation
import Stratus

/// Modify semantics and conflicts: invariants 39–52 and 54 of `cloudkit-semantics.md` §11 D.
///
/// Every ID starts with `modify.`. Each case makes its own zones and records in fresh storage.
enum ModifyCases {
    static var all: [ConformanceCase] {
        [
            staleTagConflict, resaveAfterConflict, insertExistingConflict, tagOnDeletedRecord, changedKeysPolicy,
            allKeysPolicy, systemFieldsOnEverySave, atomicZoneAllOrNothing, atomicZonesAreIndependent,
            nonAtomicAppliesGoodItems, defaultZoneIsNotAtomic, duplicateIDRejected, itemLimit, recordSizeLimit,
            cascadeDeleteSelf, cascadeCircular, deleteSelfReferenceLimit, parentMustExist, deleteMissingRecord,
            perItemResultsExactlyOnce,
        ]
    }

    /// A copy of `record` that shares its state (values, change tag, changed keys) but not its
    /// future edits.
    private static func copy(_ record: CKRecord) -> CKRecord {
        record.copy() as! CKRecord
    }

    /// The field values of `record` as text, for comparisons and messages.
    private static func fields(_ record: CKRecord?) -> [String: String] {
        guard let record else { return [:] }
        var result: [String: String] = [:]
        for key in record.allKeys() { result[key] = record.object(forKey: key).map { "\($0)" } ?? "nil" }
        return result
    }

    /// Saves `record` and returns the error of its item; fails the case if the save succeeded or
    /// the item has no result.
    private static func failingSave(
        _ db: CKDatabase, _ record: CKRecord,
        policy: CKModifyRecordsOperation.RecordSavePolicy = .ifServerRecordUnchanged,
        in context: ConformanceContext
    ) throws -> CKError {
        let result = Ops.modify(db, save: [record], policy: policy)
        if let error = result.error {
            throw context.failure(
                expected: "the operation itself succeeds (errors are per item)", actual: Reads.describe(error))
        }
        switch result.saved[record.recordID] {
        case .failure(let error as CKError)?:
            return error
        case .failure(let error)?:
            throw context.failure(expected: "a CKError for \(record.recordID.recordName)", actual: "\(error)")
        case .success?:
            throw context.failure(expected: "saving \(record.recordID.recordName) fails", actual: "it succeeded")
        case nil:
            throw context.failure(expected: "a result for \(record.recordID.recordName)", actual: "none")
        }
    }

    /// Checks a `serverRecordChanged` error: the server record carries the stored state, the
    /// client record is what was sent.
    private static func expectConflict(
        _ error: CKError, stored: CKRecord, client: CKRecord, in context: ConformanceContext
    ) throws {
        try context.expectEqual(error.code, .serverRecordChanged, "error code (\(error.localizedDescription))")
        guard let server = error.serverRecord else {
            throw context.failure(expected: "userInfo carries the server record", actual: "no serverRecord")
        }
        try context.expectEqual(server.recordID, stored.recordID, "ID of the server record")
        try context.expectEqual(
            server.recordChangeTag, stored.recordChangeTag, "change tag of the server record (the current one)")
        try context.expectEqual(fields(server), fields(stored), "fields of the server record")
        guard let sent = error.clientRecord else {
            throw context.failure(expected: "userInfo carries the client record", actual: "no clientRecord")
        }
        try context.expectEqual(sent.recordID, client.recordID, "ID of the client record")
        try context.expectEqual(fields(sent), fields(client), "fields of the client record")
    }

    // MARK: Conflicts

    static let staleTagConflict = ConformanceCase(
        "modify.staleTagConflict", invariants: [39],
        "Saving with a stale change tag fails with serverRecordChanged carrying the current server record and the client record, and changes nothing."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["M"], in: context)[0]
        context.step("save r (tag 1), then save a copy with title = server (tag 2)")
        let first = try Ops.saveAll(db, [makeRecord("r", zone: zone, ["title": "original", "n": 1])], in: context)[0]
        let winner = copy(first)
        winner["title"] = "server"
        let current = try Ops.saveAll(db, [winner], in: context)[0]
        try context.expect(
            current.recordChangeTag != first.recordChangeTag, "the second save changed the tag", actual: "same tag")

        context.step("save another copy of tag 1 with title = client")
        let loser = copy(first)
        loser["title"] = "client"
        let error = try failingSave(db, loser, in: context)
        try expectConflict(error, stored: current, client: loser, in: context)
        try context.expectEqual(error.serverRecord?["title"] as String?, "server", "title in the server record")
        try context.expectEqual(error.clientRecord?["title"] as String?, "client", "title in the client record")

        context.step("the stored record is unchanged")
        let stored = try Reads.record(db, first.recordID, in: context)
        try context.expectEqual(stored.recordChangeTag, current.recordChangeTag, "stored change tag")
        try context.expectEqual(fields(stored), fields(current), "stored fields")
    }

    static let resaveAfterConflict = ConformanceCase(
        "modify.resaveAfterConflict", invariants: [40],
        "After serverRecordChanged, the server record with merged values saves; re-saving the client or ancestor record fails again."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["M"], in: context)[0]
        context.step("save r, change it through one copy, then save a stale copy")
        let first = try Ops.saveAll(db, [makeRecord("r", zone: zone, ["a": 1, "b": 1])], in: context)[0]
        let winner = copy(first)
        winner["a"] = 2
        let current = try Ops.saveAll(db, [winner], in: context)[0]
        let loser = copy(first)
        loser["b"] = 3
        let error = try failingSave(db, loser, in: context)
        try context.expectEqual(error.code, .serverRecordChanged, "error of the stale save")
        guard let server = error.serverRecord, let client = error.clientRecord else {
            throw context.failure(expected: "server and client records in the error", actual: "\(error.userInfo.keys)")
        }

        context.step("merge b = 3 into the server record and save it")
        server["b"] = 3
        let merged = Ops.modify(db, save: [server])
        guard let saved = merged.record(server.recordID) else {
            throw context.failure(
                expected: "the merged server record saves", actual: Reads.describe(merged.saved[server.recordID]))
        }
        try context.expect(
            saved.recordChangeTag != current.recordChangeTag, "the merged save has a new change tag",
            actual: "\(String(describing: saved.recordChangeTag))")
        let stored = try Reads.record(db, first.recordID, in: context)
        try context.expectEqual(stored["a"] as Int?, 2, "stored a (the other writer's change)")
        try context.expectEqual(stored["b"] as Int?, 3, "stored b (the merged change)")

        context.step("save the client record again: still a conflict")
        let again = try failingSave(db, client, in: context)
        try context.expectEqual(again.code, .serverRecordChanged, "error of re-saving the client record")
        try context.expectEqual(
            again.serverRecord?.recordChangeTag, saved.recordChangeTag, "change tag in the new conflict's server record"
        )
        if let ancestor = error.ancestorRecord {
            context.step("save the ancestor record: still a conflict")
            ancestor["b"] = 4
            let ancestral = try failingSave(db, ancestor, in: context)
            try context.expectEqual(ancestral.code, .serverRecordChanged, "error of saving the ancestor record")
        }
        context.step("the stored record still holds the merged values")
        let final = try Reads.record(db, first.recordID, in: context)
        try context.expectEqual(final.recordChangeTag, saved.recordChangeTag, "stored change tag")
        try context.expectEqual(fields(final), fields(saved), "stored fields")
    }

    static let insertExistingConflict = ConformanceCase(
        "modify.insertExistingConflict", invariants: [41],
        "A new record object (no tag) saved under an existing ID fails with serverRecordChanged and leaves the stored record untouched."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["M"], in: context)[0]
        context.step("save r with a = 1, b = 1")
        let existing = try Ops.saveAll(db, [makeRecord("r", zone: zone, ["a": 1, "b": 1])], in: context)[0]
        context.step("save a brand-new CKRecord named r with a = 9")
        let fresh = makeRecord("r", zone: zone, ["a": 9])
        let error = try failingSave(db, fresh, in: context)
        try expectConflict(error, stored: existing, client: fresh, in: context)
        context.step("the stored record is untouched")
        let stored = try Reads.record(db, existing.recordID, in: context)
        try context.expectEqual(stored.recordChangeTag, existing.recordChangeTag, "stored change tag")
        try context.expectEqual(fields(stored), fields(existing), "stored fields")
        try context.expectEqual(stored.modificationDate, existing.modificationDate, "stored modification date")
        context.step("the same in a batch with a new record: the batch fails atomically")
        let other = makeRecord("other", zone: zone, ["a": 1])
        let batch = Ops.modify(db, save: [makeRecord("r", zone: zone, ["a": 10]), other])
        try context.expectEqual(
            Reads.errorCode(batch.saved[existing.recordID]), .serverRecordChanged, "error of the insert over r")
        try context.expectEqual(
            Reads.errorCode(batch.saved[other.recordID]), .batchRequestFailed, "error of the innocent new record")
        try context.expectEqual(
            fields(try Reads.record(db, existing.recordID, in: context)), fields(existing), "stored fields of r")
    }

    static let tagOnDeletedRecord = ConformanceCase(
        "modify.tagOnDeletedRecord", invariants: [52],
        "Saving with a change tag a record that was deleted on the server fails with unknownItem and does not re-create it (engine decision)."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["M"], in: context)[0]
        context.step("save r, keep the saved copy, delete r")
        let saved = try Ops.saveAll(db, [makeRecord("r", zone: zone, ["a": 1])], in: context)[0]
        let deletion = Ops.modify(db, delete: [saved.recordID])
        try context.expect(
            (try? deletion.deleted[saved.recordID]?.get()) != nil, "r is deleted",
            actual: Reads.describe(deletion.deleted[saved.recordID]))
        context.step("save the kept copy (with its tag) with a = 2")
        saved["a"] = 2
        let error = try failingSave(db, saved, in: context)
        try context.expectEqual(
            error.code, .unknownItem,
            "error of saving a tagged record deleted on the server (\(error.localizedDescription))")
        try Reads.expectAbsent(db, saved.recordID, in: context)
        context.step("a new record object under the same ID re-creates it")
        let again = try Ops.saveAll(db, [makeRecord("r", zone: zone, ["a": 3])], in: context)[0]
        try context.expect(
            again.recordChangeTag != saved.recordChangeTag, "the re-created record has a new change tag",
            actual: "the old tag")
    }

    // MARK: Save policies and system fields

    static let changedKeysPolicy = ConformanceCase(
        "modify.changedKeysPolicy", invariants: [42],
        "changedKeys never fails with serverRecordChanged and writes only the changed keys, keeping the server's other values."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["M"], in: context)[0]
        context.step("save r with a = 1, b = 1, c = 1; another writer sets a = 2")
        let first = try Ops.saveAll(db, [makeRecord("r", zone: zone, ["a": 1, "b": 1, "c": 1])], in: context)[0]
        let other = copy(first)
        other["a"] = 2
        _ = try Ops.saveAll(db, [other], in: context)

        context.step("stale copy sets b = 5 and removes c, saved with changedKeys")
        let stale = copy(first)
        stale["b"] = 5
        stale["c"] = nil
        let result = Ops.modify(db, save: [stale], policy: .changedKeys)
        try context.expect(
            result.record(stale.recordID) != nil, "the stale save succeeds",
            actual: Reads.describe(result.saved[stale.recordID]))
        let stored = try Reads.record(db, first.recordID, in: context)
        try context.expectEqual(
            fields(stored), ["a": "2", "b": "5"], "stored fields (a from the other writer, b changed, c removed)")

        context.step("a brand-new record object under the same ID sets d = 7, saved with changedKeys")
        let fresh = makeRecord("r", zone: zone, ["d": 7])
        let second = Ops.modify(db, save: [fresh], policy: .changedKeys)
        try context.expect(
            second.record(fresh.recordID) != nil, "the tagless save succeeds",
            actual: Reads.describe(second.saved[fresh.recordID]))
        try context.expectEqual(
            fields(try Reads.record(db, first.recordID, in: context)), ["a": "2", "b": "5", "d": "7"],
            "stored fields after adding d")
    }

    static let allKeysPolicy = ConformanceCase(
        "modify.allKeysPolicy", invariants: [42],
        "allKeys never fails with serverRecordChanged, writes every key the client record holds, and leaves server-only keys intact."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["M"], in: context)[0]
        context.step("save r with a = 1, b = 1; another writer sets a = 2 and adds s = 1")
        let first = try Ops.saveAll(db, [makeRecord("r", zone: zone, ["a": 1, "b": 1])], in: context)[0]
        let other = copy(first)
        other["a"] = 2
        other["s"] = 1
        _ = try Ops.saveAll(db, [other], in: context)

        context.step("stale copy (a = 1 unchanged) sets e = 3, saved with allKeys")
        let stale = copy(first)
        stale["e"] = 3
        let result = Ops.modify(db, save: [stale], policy: .allKeys)
        try context.expect(
            result.record(stale.recordID) != nil, "the stale save succeeds",
            actual: Reads.describe(result.saved[stale.recordID]))
        try context.expectEqual(
            fields(try Reads.record(db, first.recordID, in: context)), ["a": "1", "b": "1", "e": "3", "s": "1"],
            "stored fields (every client key written, unchanged a included; server-only s kept)")

        context.step("a brand-new record object with only b = 9, saved with allKeys")
        let fresh = makeRecord("r", zone: zone, ["b": 9])
        let second = Ops.modify(db, save: [fresh], policy: .allKeys)
        try context.expect(
            second.record(fresh.recordID) != nil, "the tagless save succeeds",
            actual: Reads.describe(second.saved[fresh.recordID]))
        try context.expectEqual(
            fields(try Reads.record(db, first.recordID, in: context)), ["a": "1", "b": "9", "e": "3", "s": "1"],
            "stored fields (keys the client does not hold are kept)")
    }

    static let systemFieldsOnEverySave = ConformanceCase(
        "modify.systemFieldsOnEverySave", invariants: [43],
        "Every successful save, under any policy, gives a change tag never seen before, sets modificationDate and keeps creationDate and creator."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["M"], in: context)[0]
        context.step("create r")
        var record = try Ops.saveAll(db, [makeRecord("r", zone: zone, ["n": 0])], in: context)[0]
        guard let created = record.creationDate, let tag = record.recordChangeTag,
            let modified = record.modificationDate
        else {
            throw context.failure(
                expected: "creationDate, modificationDate and a change tag after the first save", actual: "\(record)")
        }
        let creator = record.creatorUserRecordID
        try context.expect(creator != nil, "a creator after the first save", actual: "nil")
        try context.expect(modified >= created, "modificationDate ≥ creationDate", actual: "\(modified) < \(created)")
        var tags: Set<String> = [tag]
        var lastModified = modified
        let policies: [CKModifyRecordsOperation.RecordSavePolicy] = [
            .ifServerRecordUnchanged, .changedKeys, .allKeys, .ifServerRecordUnchanged, .changedKeys, .allKeys,
        ]
        for (index, policy) in policies.enumerated() {
            context.step("save \(index + 2) with policy \(policy)")
            record["n"] = index + 1
            let result = Ops.modify(db, save: [record], policy: policy)
            guard let saved = result.record(record.recordID) else {
                throw context.failure(
                    expected: "save \(index + 2) succeeds", actual: Reads.describe(result.saved[record.recordID]))
            }
            guard let newTag = saved.recordChangeTag else {
                throw context.failure(expected: "a change tag", actual: "nil")
            }
            try context.expect(
                tags.insert(newTag).inserted, "a change tag never seen before",
                actual: "\(newTag) again (seen: \(tags.sorted()))")
            try context.expectEqual(saved.creationDate, created, "creationDate")
            try context.expectEqual(saved.creatorUserRecordID, creator, "creatorUserRecordID")
            guard let date = saved.modificationDate else {
                throw context.failure(expected: "a modificationDate", actual: "nil")
            }
            try context.expect(
                date >= lastModified, "modificationDate never goes back", actual: "\(date) < \(lastModified)")
            lastModified = date
            let stored = try Reads.record(db, record.recordID, in: context)
            try context.expectEqual(stored.recordChangeTag, newTag, "stored change tag")
            try context.expectEqual(stored.modificationDate, date, "stored modificationDate")
            record = saved
        }
        context.step("delete r and create it again: still a tag never seen before")
        let deletion = Ops.modify(db, delete: [record.recordID])
        try context.expect(
            deletion.deleted[record.recordID] != nil && Reads.errorCode(deletion.deleted[record.recordID]) == nil,
            "r is deleted", actual: Reads.describe(deletion.deleted[record.recordID]))
        let reborn = try Ops.saveAll(db, [makeRecord("r", zone: zone, ["n": 99])], in: context)[0]
        try context.expect(
            reborn.recordChangeTag.map { !tags.contains($0) } ?? false,
            "the re-created record's tag was never used before",
            actual: "\(String(describing: reborn.recordChangeTag)) (seen: \(tags.sorted()))")
        try context.expect(
            (reborn.creationDate ?? .distantPast) >= created, "the re-created record has a new creationDate",
            actual: "\(String(describing: reborn.creationDate))")
    }

    // MARK: Atomicity

    static let atomicZoneAllOrNothing = ConformanceCase(
        "modify.atomicZoneAllOrNothing", invariants: [44],
        "In an atomic zone one failing item cancels every item of the zone; the culprit has its own error, the others batchRequestFailed."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Atomic"], in: context)[0]
        context.step("save existing records e (to go stale) and d (to delete)")
        let saved = try Ops.saveAll(
            db, [makeRecord("e", zone: zone, ["v": 1]), makeRecord("d", zone: zone, ["v": 1])], in: context)
        let (e, d) = (saved[0], saved[1])
        let winner = copy(e)
        winner["v"] = 2
        let current = try Ops.saveAll(db, [winner], in: context)[0]

        context.step("one operation: new n1, n2, stale e, delete d")
        let stale = copy(e)
        stale["v"] = 3
        let (n1, n2) = (makeRecord("n1", zone: zone, ["v": 1]), makeRecord("n2", zone: zone, ["v": 1]))
        let result = Ops.modify(db, save: [n1, stale, n2], delete: [d.recordID])
        try context.expect(
            result.error == nil, "the operation itself succeeds (errors are per item)",
            actual: Reads.describe(result.error))
        try context.expectEqual(
            Reads.errorCode(result.saved[e.recordID]), .serverRecordChanged,
            "error of the culprit e (\(Reads.describe(result.saved[e.recordID])))")
        for id in [n1.recordID, n2.recordID] {
            try context.expectEqual(
                Reads.errorCode(result.saved[id]), .batchRequestFailed,
                "error of innocent save \(id.recordName) (\(Reads.describe(result.saved[id])))")
        }
        try context.expectEqual(
            Reads.errorCode(result.deleted[d.recordID]), .batchRequestFailed,
            "error of innocent delete d (\(Reads.describe(result.deleted[d.recordID])))")

        context.step("nothing of the batch was applied")
        try Reads.expectAbsent(db, n1.recordID, in: context)
        try Reads.expectAbsent(db, n2.recordID, in: context)
        try context.expectEqual(
            try Reads.record(db, d.recordID, in: context).recordChangeTag, d.recordChangeTag, "tag of d (not deleted)")
        try context.expectEqual(
            try Reads.record(db, e.recordID, in: context).recordChangeTag, current.recordChangeTag, "tag of e")

        context.step("a client-side validation failure (field '_bad') also fails the whole zone batch")
        let invalid = makeRecord("bad", zone: zone, ["_bad": 1])
        let n3 = makeRecord("n3", zone: zone, ["v": 1])
        let second = Ops.modify(db, save: [n3, invalid], delete: [d.recordID])
        try context.expectEqual(
            Reads.errorCode(second.saved[invalid.recordID]), .invalidArguments, "error of the invalid record")
        try context.expectEqual(Reads.errorCode(second.saved[n3.recordID]), .batchRequestFailed, "error of innocent n3")
        try context.expectEqual(
            Reads.errorCode(second.deleted[d.recordID]), .batchRequestFailed, "error of innocent delete d")
        try Reads.expectAbsent(db, n3.recordID, in: context)
        _ = try Reads.record(db, d.recordID, in: context)

        context.step("the same items without the culprit all apply")
        let retry = Ops.modify(db, save: [n1, n2, n3], delete: [d.recordID])
        for id in [n1.recordID, n2.recordID, n3.recordID] {
            try context.expect(
                retry.record(id) != nil, "\(id.recordName) saved on retry", actual: Reads.describe(retry.saved[id]))
        }
        try Reads.expectAbsent(db, d.recordID, in: context)
    }

    static let atomicZonesAreIndependent = ConformanceCase(
        "modify.atomicZonesAreIndependent", invariants: [45],
        "An atomic failure in zone A does not stop the same operation's changes in zone B or in the default zone."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zones = try Ops.createZones(db, ["A", "B"], in: context)
        let (a, b) = (zones[0], zones[1])
        context.step("save existing record x in A and y in B")
        let x = try Ops.saveAll(db, [makeRecord("x", zone: a, ["v": 1])], in: context)[0]
        let y = try Ops.saveAll(db, [makeRecord("y", zone: b, ["v": 1])], in: context)[0]

        context.step(
            "one operation: A gets a new record and a conflicting insert; B gets a new record, a change and a delete; default gets a new record"
        )
        let a1 = makeRecord("a1", zone: a)
        let conflict = makeRecord("x", zone: a, ["v": 9])
        let b1 = makeRecord("b1", zone: b)
        let bChanged = copy(y)
        bChanged["v"] = 2
        let d1 = makeRecord("d1", zone: .default)
        let result = Ops.modify(db, save: [a1, b1, conflict, bChanged, d1], delete: [])
        try context.expectEqual(
            Reads.errorCode(result.saved[x.recordID]), .serverRecordChanged, "error of the conflict in A")
        try context.expectEqual(
            Reads.errorCode(result.saved[a1.recordID]), .batchRequestFailed, "error of the innocent item in A")
        for id in [b1.recordID, y.recordID, d1.recordID] {
            try context.expect(
                result.record(id) != nil, "\(id.recordName) in zone \(id.zoneID.zoneName) saved",
                actual: Reads.describe(result.saved[id]))
        }
        context.step("zone B and the default zone hold the changes; zone A holds none")
        try context.expectEqual(try Reads.record(db, y.recordID, in: context)["v"] as Int?, 2, "stored v of y in B")
        _ = try Reads.record(db, b1.recordID, in: context)
        _ = try Reads.record(db, d1.recordID, in: context)
        try Reads.expectAbsent(db, a1.recordID, in: context)
        try context.expectEqual(
            try Reads.record(db, x.recordID, in: context).recordChangeTag, x.recordChangeTag, "tag of x in A")

        context.step("again with a failing delete in B: A's items apply")
        let a2 = makeRecord("a2", zone: a)
        let b2 = makeRecord("b2", zone: b)
        let missing = CKRecord.ID(recordName: "missing", zoneID: b)
        let second = Ops.modify(db, save: [a2, b2], delete: [missing])
        try context.expectEqual(
            Reads.errorCode(second.deleted[missing]), .unknownItem, "error of deleting a missing record in B")
        try context.expectEqual(
            Reads.errorCode(second.saved[b2.recordID]), .batchRequestFailed, "error of the innocent item in B")
        try context.expect(
            second.record(a2.recordID) != nil, "a2 in A saved", actual: Reads.describe(second.saved[a2.recordID]))
        try Reads.expectAbsent(db, b2.recordID, in: context)
    }

    static let nonAtomicAppliesGoodItems = ConformanceCase(
        "modify.nonAtomicAppliesGoodItems", invariants: [46],
        "With isAtomic = false, successful items of a custom zone apply even when others fail, and each item reports its own result."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["M"], in: context)[0]
        context.step("save existing record e and d")
        let saved = try Ops.saveAll(
            db, [makeRecord("e", zone: zone, ["v": 1]), makeRecord("d", zone: zone)], in: context)
        let (e, d) = (saved[0], saved[1])
        context.step(
            "isAtomic = false: new n1, conflicting insert over e, invalid field, delete d, delete a missing record")
        let n1 = makeRecord("n1", zone: zone, ["v": 1])
        let conflict = makeRecord("e", zone: zone, ["v": 9])
        let invalid = makeRecord("bad", zone: zone, ["_x": 1])
        let missing = CKRecord.ID(recordName: "missing", zoneID: zone)
        let result = Ops.modify(db, save: [n1, conflict, invalid], delete: [d.recordID, missing], atomic: false)
        try context.expect(result.error == nil, "the operation itself succeeds", actual: Reads.describe(result.error))
        try context.expect(
            result.record(n1.recordID) != nil, "n1 saved", actual: Reads.describe(result.saved[n1.recordID]))
        try context.expectEqual(
            Reads.errorCode(result.saved[e.recordID]), .serverRecordChanged, "error of the conflicting insert")
        try context.expectEqual(
            Reads.errorCode(result.saved[invalid.recordID]), .invalidArguments, "error of the invalid record")
        try context.expect(
            result.deleted[d.recordID] != nil && Reads.errorCode(result.deleted[d.recordID]) == nil, "d deleted",
            actual: Reads.describe(result.deleted[d.recordID]))
        try context.expectEqual(
            Reads.errorCode(result.deleted[missing]), .unknownItem, "error of deleting a missing record")
        context.step("the good items are applied, the bad ones are not")
        _ = try Reads.record(db, n1.recordID, in: context)
        try Reads.expectAbsent(db, d.recordID, in: context)
        try Reads.expectAbsent(db, invalid.recordID, in: context)
        try context.expectEqual(try Reads.record(db, e.recordID, in: context)["v"] as Int?, 1, "stored v of e")
    }

    static let defaultZoneIsNotAtomic = ConformanceCase(
        "modify.defaultZoneIsNotAtomic", invariants: [46],
        "In the default zone (no atomic capability) isAtomic = true has no effect: good items apply, failing items report their own errors."
    ) { context in
        let db = try context.container().privateCloudDatabase
        context.step("save existing record e in the default zone")
        let e = try Ops.saveAll(db, [makeRecord("e", zone: .default, ["v": 1])], in: context)[0]
        context.step("isAtomic = true: new n1, conflicting insert over e, delete a missing record")
        let n1 = makeRecord("n1", zone: .default, ["v": 1])
        let missing = CKRecord.ID(recordName: "missing")
        let result = Ops.modify(
            db, save: [n1, makeRecord("e", zone: .default, ["v": 9])], delete: [missing], atomic: true)
        try context.expect(
            result.record(n1.recordID) != nil, "n1 saved", actual: Reads.describe(result.saved[n1.recordID]))
        try context.expectEqual(
            Reads.errorCode(result.saved[e.recordID]), .serverRecordChanged, "error of the conflicting insert")
        try context.expectEqual(
            Reads.errorCode(result.deleted[missing]), .unknownItem, "error of deleting a missing record")
        _ = try Reads.record(db, n1.recordID, in: context)
        try context.expectEqual(try Reads.record(db, e.recordID, in: context)["v"] as Int?, 1, "stored v of e")
    }

    // MARK: Request-level limits

    static let duplicateIDRejected = ConformanceCase(
        "modify.duplicateIDRejected", invariants: [47],
        "The same record ID twice in one operation (two saves, or a save and a delete) fails the whole operation with invalidArguments."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["M"], in: context)[0]
        let existing = try Ops.saveAll(db, [makeRecord("existing", zone: zone, ["v": 1])], in: context)[0]
        let other = makeRecord("other", zone: zone)
        let shapes: [(String, [CKRecord], [CKRecord.ID])] = [
            (
                "two saves of dup",
                [makeRecord("dup", zone: zone, ["v": 1]), other, makeRecord("dup", zone: zone, ["v": 2])], []
            ),
            ("a save and a delete of existing", [copy(existing), other], [existing.recordID]),
            ("two deletes of existing", [other], [existing.recordID, existing.recordID]),
        ]
        for (label, saves, deletes) in shapes {
            for atomic in [true, false] {
                context.step("\(label), isAtomic = \(atomic)")
                let result = Ops.modify(db, save: saves, delete: deletes, atomic: atomic)
                try context.expectEqual(
                    ckCode(result.error), .invalidArguments, "error of the operation (\(Reads.describe(result.error)))")
                try context.expect(
                    result.saved.values.allSatisfy { (try? $0.get()) == nil }
                        && result.deleted.values.allSatisfy { (try? $0.get()) == nil },
                    "no item reported as applied",
                    actual: "saved \(result.saved.count), deleted \(result.deleted.count)")
            }
        }
        context.step("nothing was applied")
        try Reads.expectAbsent(db, CKRecord.ID(recordName: "dup", zoneID: zone), in: context)
        try Reads.expectAbsent(db, other.recordID, in: context)
        try context.expectEqual(
            try Reads.record(db, existing.recordID, in: context).recordChangeTag, existing.recordChangeTag,
            "tag of existing")
    }

    static let itemLimit = ConformanceCase(
        "modify.itemLimit", invariants: [48],
        "401 items in one operation fail with limitExceeded and apply nothing; 400 items are accepted."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["M"], in: context)[0]
        context.step("save 401 records in one operation")
        let records = (0..<401).map { makeRecord("r\($0)", zone: zone, ["n": $0]) }
        let tooMany = Ops.modify(db, save: records)
        try context.expectEqual(
            ckCode(tooMany.error), .limitExceeded, "error of 401 saves (\(Reads.describe(tooMany.error)))")
        try context.expect(
            tooMany.saved.values.allSatisfy { (try? $0.get()) == nil }, "no item reported as saved",
            actual: "\(tooMany.saved.values.filter { (try? $0.get()) != nil }.count) saved")
        let none = Ops.zoneChanges(db, zone, since: nil)
        try context.expectEqual(none.changed.count, 0, "records in the zone after the rejected operation")

        context.step("300 saves and 101 deletes in one operation")
        let mixed = Ops.modify(
            db, save: Array(records.prefix(300)),
            delete: (0..<101).map { CKRecord.ID(recordName: "x\($0)", zoneID: zone) })
        try context.expectEqual(
            ckCode(mixed.error), .limitExceeded, "error of 401 mixed items (\(Reads.describe(mixed.error)))")
        try context.expectEqual(
            Ops.zoneChanges(db, zone, since: nil).changed.count, 0, "records in the zone after the rejected operation")

        context.step("save 400 records in one operation")
        let fine = Ops.modify(db, save: Array(records.prefix(400)))
        try context.expect(fine.error == nil, "400 saves succeed", actual: Reads.describe(fine.error))
        try context.expectEqual(fine.saved.values.filter { (try? $0.get()) != nil }.count, 400, "records saved")
        try context.expectEqual(Ops.zoneChanges(db, zone, since: nil).changed.count, 400, "records in the zone")
    }

    static let recordSizeLimit = ConformanceCase(
        "modify.recordSizeLimit", invariants: [49],
        "A record with more than 1 MB of non-asset data is rejected with limitExceeded and not stored; a 900 kB record is accepted."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["M"], in: context)[0]
        let shapes: [(String, [String: any CKRecordValue])] = [
            ("a 1.1 MB string", ["text": String(repeating: "x", count: 1_100_000)]),
            ("1.1 MB of data", ["blob": Data(repeating: 7, count: 1_100_000)]),
            (
                "two 600 kB strings",
                ["a": String(repeating: "a", count: 600_000), "b": String(repeating: "b", count: 600_000)]
            ),
            ("a list of 11 strings of 100 kB", ["list": (0..<11).map { _ in String(repeating: "l", count: 100_000) }]),
        ]
        for (index, (label, values)) in shapes.enumerated() {
            context.step("save a record holding \(label)")
            let record = makeRecord("big\(index)", zone: zone, values)
            let result = Ops.modify(db, save: [record], atomic: false)
            try context.expectEqual(
                Reads.errorCode(result.saved[record.recordID]) ?? ckCode(result.error), .limitExceeded,
                "error of a record holding \(label) (\(Reads.describe(result.saved[record.recordID])))")
            try Reads.expectAbsent(db, record.recordID, in: context)
        }
        context.step("a 900 kB record is accepted")
        _ = try Ops.saveAll(
            db, [makeRecord("fits", zone: zone, ["text": String(repeating: "y", count: 900_000)])], in: context)

        context.step("growing the stored record past 1 MB with a second field is rejected")
        let grown = try Reads.record(db, CKRecord.ID(recordName: "fits", zoneID: zone), in: context)
        grown["more"] = String(repeating: "z", count: 200_000)
        let error = try failingSave(db, grown, in: context)
        try context.expectEqual(
            error.code, .limitExceeded, "error of growing a record past 1 MB (\(error.localizedDescription))")
    }

    // MARK: References

    static let cascadeDeleteSelf = ConformanceCase(
        "modify.cascadeDeleteSelf", invariants: [50],
        "Deleting a record deletes its deleteSelf referrers recursively in the same operation; the next change fetch reports each deletion; .none referrers survive."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["M"], in: context)[0]
        func ref(_ name: String, _ action: CKRecord.ReferenceAction) -> CKRecord.Reference {
            CKRecord.Reference(recordID: CKRecord.ID(recordName: name, zoneID: zone), action: action)
        }
        context.step(
            "save p; c1, c2 → p (deleteSelf); g → c1 (deleteSelf); l → [c2 deleteSelf, u none]; n → p (none); u unrelated"
        )
        _ = try Ops.saveAll(
            db,
            [
                makeRecord("p", zone: zone), makeRecord("u", zone: zone),
                makeRecord("c1", zone: zone, ["owner": ref("p", .deleteSelf)]),
                makeRecord("c2", zone: zone, ["owner": ref("p", .deleteSelf)]),
                makeRecord("g", zone: zone, ["owner": ref("c1", .deleteSelf)]),
                makeRecord("l", zone: zone, ["owners": [ref("u", .none), ref("c2", .deleteSelf)]]),
                makeRecord("n", zone: zone, ["link": ref("p", .none)]),
            ], in: context)
        let token = Ops.zoneChanges(db, zone, since: nil).token

        context.step("delete p")
        let p = CKRecord.ID(recordName: "p", zoneID: zone)
        let result = Ops.modify(db, delete: [p])
        try context.expect(
            result.deleted[p] != nil && Reads.errorCode(result.deleted[p]) == nil, "p deleted",
            actual: Reads.describe(result.deleted[p]))
        try context.expectEqual(
            Reads.names(Array(result.deleted.keys)), ["p"],
            "items reported by the operation (cascades are not reported)")

        context.step("right after the operation: the cascade is complete")
        for name in ["p", "c1", "c2", "g", "l"] {
            try Reads.expectAbsent(db, CKRecord.ID(recordName: name, zoneID: zone), in: context)
        }
        let survivor = try Reads.record(db, CKRecord.ID(recordName: "n", zoneID: zone), in: context)
        try context.expectEqual(
            (survivor["link"] as CKRecord.Reference?)?.recordID, p,
            "the .none referrer keeps its dangling reference to p")
        _ = try Reads.record(db, CKRecord.ID(recordName: "u", zoneID: zone), in: context)

        context.step("the next change fetch reports every deletion once, and nothing changed")
        let changes = Ops.zoneChanges(db, zone, since: token)
        try context.expect(
            changes.zoneError == nil && changes.error == nil, "the change fetch succeeds",
            actual: Reads.describe(changes.zoneError ?? changes.error))
        try context.expectEqual(
            changes.deleted.map(\.0.recordName).sorted(), ["c1", "c2", "g", "l", "p"], "deletions reported")
        try context.expect(
            changes.deleted.allSatisfy { $0.1 == "Item" }, "each deletion carries the record type Item",
            actual: "\(changes.deleted.map(\.1))")
        try context.expectEqual(Reads.names(changes.changed), [], "records reported as changed")
        context.step("a query finds only the survivors")
        let left = Ops.query(db, CKQuery(recordType: "Item", predicate: NSPredicate(value: true)), zoneID: zone)
        try context.expectEqual(Reads.names(left.records), ["n", "u"], "records left in the zone")
    }

    static let cascadeCircular = ConformanceCase(
        "modify.cascadeCircular", invariants: [50],
        "Circular deleteSelf references are allowed; deleting one record of the cycle deletes the whole cycle and stops."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["M"], in: context)[0]
        func ref(_ name: String) -> CKRecord.Reference {
            CKRecord.Reference(recordID: CKRecord.ID(recordName: name, zoneID: zone), action: .deleteSelf)
        }
        context.step("save a → b → c → a (deleteSelf), self-referencing s, and keep")
        _ = try Ops.saveAll(
            db,
            [
                makeRecord("a", zone: zone, ["owner": ref("b")]), makeRecord("b", zone: zone, ["owner": ref("c")]),
                makeRecord("c", zone: zone, ["owner": ref("a")]), makeRecord("s", zone: zone, ["owner": ref("s")]),
                makeRecord("keep", zone: zone),
            ], in: context)
        context.step("delete b and s")
        let result = Ops.modify(
            db, delete: [CKRecord.ID(recordName: "b", zoneID: zone), CKRecord.ID(recordName: "s", zoneID: zone)])
        try context.expect(
            result.error == nil && result.deleted.values.allSatisfy { (try? $0.get()) != nil }, "both deletes succeed",
            actual: result.deleted.mapValues { Reads.describe($0) }.description)
        for name in ["a", "b", "c", "s"] {
            try Reads.expectAbsent(db, CKRecord.ID(recordName: name, zoneID: zone), in: context)
        }
        _ = try Reads.record(db, CKRecord.ID(recordName: "keep", zoneID: zone), in: context)
    }

    static let parentMustExist = ConformanceCase(
        "modify.parentMustExist", invariants: [51],
        "A record whose parent neither exists nor is saved in the same operation fails with referenceViolation; an existing or same-batch parent is fine."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["M"], in: context)[0]
        context.step("save orphan with parent 'ghost' (missing)")
        let orphan = makeRecord("orphan", zone: zone)
        orphan.setParent(CKRecord.ID(recordName: "ghost", zoneID: zone))
        let error = try failingSave(db, orphan, in: context)
        try context.expectEqual(
            error.code, .referenceViolation, "error of a missing parent (\(error.localizedDescription))")
        try Reads.expectAbsent(db, orphan.recordID, in: context)

        context.step("save child and its new parent in the same operation (child first)")
        let parent = makeRecord("parent", zone: zone)
        let child = makeRecord("child", zone: zone)
        child.setParent(parent)
        let batch = Ops.modify(db, save: [child, parent])
        for id in [child.recordID, parent.recordID] {
            try context.expect(
                batch.record(id) != nil, "\(id.recordName) saved", actual: Reads.describe(batch.saved[id]))
        }
        try context.expectEqual(
            batch.record(child.recordID)?.parent?.recordID, parent.recordID, "parent of the saved child")

        context.step("save a second child of the now existing parent")
        let second = makeRecord("child2", zone: zone)
        second.setParent(parent.recordID)
        let saved = try Ops.saveAll(db, [second], in: context)[0]
        try context.expectEqual(saved.parent?.recordID, parent.recordID, "parent of child2")
        try context.expectEqual(
            try Reads.record(db, second.recordID, in: context).parent?.recordID, parent.recordID,
            "stored parent of child2")

        context.step("re-parent child2 to a missing record: referenceViolation, stored parent unchanged")
        saved.setParent(CKRecord.ID(recordName: "ghost2", zoneID: zone))
        let reparent = try failingSave(db, saved, in: context)
        try context.expectEqual(reparent.code, .referenceViolation, "error of re-parenting to a missing record")
        try context.expectEqual(
            try Reads.record(db, second.recordID, in: context).parent?.recordID, parent.recordID,
            "stored parent of child2 after the failure")
    }

    static let deleteMissingRecord = ConformanceCase(
        "modify.deleteMissingRecord", invariants: [52],
        "Deleting a record that does not exist (never saved, or already deleted) reports unknownItem for that item (engine decision)."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["M"], in: context)[0]
        context.step("delete a record that was never saved")
        let never = CKRecord.ID(recordName: "never", zoneID: zone)
        let first = Ops.modify(db, delete: [never])
        try context.expect(
            first.error == nil, "the operation itself succeeds (errors are per item)",
            actual: Reads.describe(first.error))
        try context.expectEqual(
            Reads.errorCode(first.deleted[never]), .unknownItem,
            "error of deleting a never-saved record (\(Reads.describe(first.deleted[never])))")

        context.step("save r, delete it twice")
        let r = try Ops.saveAll(db, [makeRecord("r", zone: zone)], in: context)[0].recordID
        let once = Ops.modify(db, delete: [r])
        try context.expect(
            once.deleted[r] != nil && Reads.errorCode(once.deleted[r]) == nil, "the first delete succeeds",
            actual: Reads.describe(once.deleted[r]))
        let twice = Ops.modify(db, delete: [r])
        try context.expectEqual(
            Reads.errorCode(twice.deleted[r]), .unknownItem,
            "error of deleting r again (\(Reads.describe(twice.deleted[r])))")

        context.step("in the default zone too")
        let absent = CKRecord.ID(recordName: "absent")
        let third = Ops.modify(db, delete: [absent])
        try context.expectEqual(
            Reads.errorCode(third.deleted[absent]), .unknownItem, "error of deleting a missing default-zone record")
    }

    static let perItemResultsExactlyOnce = ConformanceCase(
        "modify.perItemResultsExactlyOnce", invariants: [54],
        "Every requested save and delete gets exactly one per-item result, successes and failures alike, and the operation completes once."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zones = try Ops.createZones(db, ["A", "B"], in: context)
        let (a, b) = (zones[0], zones[1])
        context.step("save records to delete in A, B and the default zone, and c (to conflict with) in A")
        let existing = try Ops.saveAll(
            db, [makeRecord("ea", zone: a), makeRecord("eb", zone: b), makeRecord("ed", zone: .default)], in: context)
        _ = try Ops.saveAll(db, [makeRecord("c", zone: a)], in: context)
        let ghost = CKRecordZone.ID(zoneName: "Ghost")

        var saves: [CKRecord] = []
        var deletes: [CKRecord.ID] = existing.map(\.recordID)
        for (index, zone) in [a, b, .default, ghost].enumerated() {
            saves += (0..<3).map { makeRecord("s\(index)-\($0)", zone: zone, ["n": $0]) }
            deletes.append(CKRecord.ID(recordName: "missing\(index)", zoneID: zone))
        }
        saves.append(makeRecord("c", zone: a, ["n": 1]))  // an insert over an existing record: a conflict in A
        saves.append(makeRecord("bad", zone: b, ["_n": 1]))  // an invalid field name in B
        let allIDs = saves.map(\.recordID) + deletes
        // Items answer once whatever their outcome, so the rounds need no clean-up in between.
        for atomic in [true, false] {
            context.step(
                "one operation of \(saves.count) saves and \(deletes.count) deletes over 4 zones, isAtomic = \(atomic)")
            let op = CKModifyRecordsOperation(recordsToSave: saves, recordIDsToDelete: deletes)
            op.isAtomic = atomic
            let saveCalls = Collector<CKRecord.ID>()
            let deleteCalls = Collector<CKRecord.ID>()
            let completions = Collector<Bool>()
            op.perRecordSaveBlock = { id, _ in saveCalls.append(id) }
            op.perRecordDeleteBlock = { id, _ in deleteCalls.append(id) }
            op.modifyRecordsResultBlock = { result in completions.append((try? result.get()) != nil) }
            Ops.run(op, on: db)
            try context.expectEqual(completions.values, [true], "calls of modifyRecordsResultBlock (true: success)")
            for (label, calls, expected) in [
                ("perRecordSaveBlock", saveCalls.values, saves.map(\.recordID)),
                ("perRecordDeleteBlock", deleteCalls.values, deletes),
            ] {
                var counts: [CKRecord.ID: Int] = [:]
                for id in calls { counts[id, default: 0] += 1 }
                try context.expectEqual(
                    Reads.names(Array(counts.keys)), Reads.names(expected), "record names answered by \(label)")
                try context.expectEqual(Set(counts.keys), Set(expected), "record IDs answered by \(label)")
                try context.expect(
                    counts.values.allSatisfy { $0 == 1 }, "one \(label) call per record",
                    actual: counts.filter { $0.value != 1 }.map { "\($0.key.recordName): \($0.value)" }.description)
            }
        }

        context.step("the deprecated completion block: saved + deleted + partial errors cover every item once")
        let op = CKModifyRecordsOperation(recordsToSave: saves, recordIDsToDelete: deletes)
        op.isAtomic = false
        let outcome = Collector<([CKRecord.ID], [CKRecord.ID], [CKRecord.ID])>()
        op.modifyRecordsCompletionBlock = { saved, deleted, error in
            let partial = ((error as? CKError)?.partialErrorsByItemID ?? [:]).keys.compactMap {
                $0.base as? CKRecord.ID
            }
            outcome.append(((saved ?? []).map(\.recordID), deleted ?? [], partial))
        }
        Ops.run(op, on: db)
        guard let first = outcome.values.first, outcome.values.count == 1 else {
            throw context.failure(
                expected: "one call of modifyRecordsCompletionBlock", actual: "\(outcome.values.count)")
        }
        let answered = first.0 + first.1 + first.2
        try context.expectEqual(answered.count, allIDs.count, "items answered by saved + deleted + partial errors")
        try context.expectEqual(Set(answered), Set(allIDs), "IDs answered")
    }
}
