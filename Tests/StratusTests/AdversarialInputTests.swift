import Foundation
import Stratus
import Testing

/// Helpers for the adversarial review tests: run a modify operation and collect every item's
/// result, and check that a record already stored is still exactly as it was.
enum AdversarialKit {
    struct ModifyResults: Sendable {
        var saves: [CKRecord.ID: Result<CKRecord, any Error>] = [:]
        var deletes: [CKRecord.ID: Result<Void, any Error>] = [:]
        var final: Result<Void, any Error>?
    }

    /// Runs one `CKModifyRecordsOperation` and returns what its Result blocks reported.
    static func modify(
        _ database: CKDatabase, saving: [CKRecord] = [], deleting: [CKRecord.ID] = [],
        policy: CKModifyRecordsOperation.RecordSavePolicy = .ifServerRecordUnchanged, atomic: Bool = true
    ) async -> ModifyResults {
        let operation = CKModifyRecordsOperation(recordsToSave: saving, recordIDsToDelete: deleting)
        operation.savePolicy = policy
        operation.isAtomic = atomic
        let box = OpsLog<ModifyResults>()
        let saves = OpsLog<(CKRecord.ID, Result<CKRecord, any Error>)>()
        let deletes = OpsLog<(CKRecord.ID, Result<Void, any Error>)>()
        operation.perRecordSaveBlock = { id, result in saves.append((id, result)) }
        operation.perRecordDeleteBlock = { id, result in deletes.append((id, result)) }
        operation.modifyRecordsResultBlock = { result in
            var results = ModifyResults()
            results.final = result
            box.append(results)
        }
        await OpsTestKit.run(operation, on: database)
        var results = box.all.first ?? ModifyResults()
        for (id, result) in saves.all { results.saves[id] = result }
        for (id, result) in deletes.all { results.deletes[id] = result }
        return results
    }

    /// The message of a failed result, or "" for a success.
    static func message<T>(_ result: Result<T, any Error>?) -> String {
        guard case .failure(let error) = result else { return "" }
        return error.localizedDescription
    }

    /// Fetches `stored` again and checks that its change tag and every field are unchanged.
    static func expectIntact(
        _ stored: CKRecord, in database: CKDatabase, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let fetched = try await database.record(for: stored.recordID)
        #expect(fetched.recordChangeTag == stored.recordChangeTag, sourceLocation: sourceLocation)
        #expect(fetched.allKeys() == stored.allKeys(), sourceLocation: sourceLocation)
        for key in stored.allKeys() {
            #expect(
                String(describing: fetched[key]) == String(describing: stored[key]),
                "field \(key) changed", sourceLocation: sourceLocation)
        }
    }

    /// A database with a custom zone "Z" holding record "keep" (title "original", count 1).
    static func fixture() async throws -> (database: CKDatabase, zoneID: CKRecordZone.ID, keep: CKRecord) {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "keep", zoneID: zoneID))
        record["title"] = "original"
        record["count"] = 1
        let keep = try #require(try await OpsTestKit.save([record], in: database).first)
        return (database, zoneID, keep)
    }

    /// Saves `bad` next to an edit of the stored record "keep" in one atomic request in a custom
    /// zone: `bad` must fail with `code` and a message containing every string of `mentions`,
    /// the edit must fail with `batchRequestFailed`, and "keep" must be unchanged afterwards.
    static func expectRejected(
        _ makeBad: (CKRecordZone.ID) -> CKRecord, code: CKError.Code, mentions: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let (database, zoneID, keep) = try await fixture()
        let edit = try await database.record(for: keep.recordID)
        edit["title"] = "edited"
        let bad = makeBad(zoneID)
        let results = await modify(database, saving: [edit, bad])
        #expect(OpsTestKit.code(results.final) == nil, sourceLocation: sourceLocation)
        #expect(OpsTestKit.code(results.saves[bad.recordID]) == code, sourceLocation: sourceLocation)
        let text = message(results.saves[bad.recordID])
        for mention in mentions {
            #expect(
                text.contains(mention), "message \"\(text)\" does not mention \(mention)",
                sourceLocation: sourceLocation)
        }
        if bad.recordID != keep.recordID {
            #expect(
                OpsTestKit.code(results.saves[keep.recordID]) == .batchRequestFailed, sourceLocation: sourceLocation)
        }
        try await expectIntact(keep, in: database, sourceLocation: sourceLocation)
    }
}

/// Malformed input: names, types, values, sizes and request shapes CloudKit rejects. Each must
/// fail with the right code and a message naming the bad value, and leave stored data intact.
@Suite struct AdversarialInputTests {
    // MARK: Record names

    @Test(arguments: [
        ("", "empty"),
        (String(repeating: "a", count: 256), "256"),
        ("café", "café"),
        ("naïve-\u{1F600}", "naïve"),
        ("_secret", "_secret"),
    ])
    func badRecordNamesAreRejected(name: String, mention: String) async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: zone))
                record["title"] = "x"
                return record
            }, code: .invalidArguments, mentions: [mention])
    }

    @Test func aRecordNameOfExactly255ASCIICharactersIsAccepted() async throws {
        let (database, zoneID, _) = try await AdversarialKit.fixture()
        let name = String(repeating: "n", count: 255)
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
        record["title"] = "long name"
        try await OpsTestKit.save([record], in: database)
        #expect(try await database.record(for: record.recordID)["title"] as? String == "long name")
    }

    /// Names that differ only after a NUL or a control character are distinct records: the key
    /// encoding must not let them collide.
    @Test func namesWithNULAndControlCharactersStayDistinct() async throws {
        let (database, zoneID, _) = try await AdversarialKit.fixture()
        let names = ["a", "a\u{0}", "a\u{0}b", "a\u{0}\u{0}", "a\u{1}", "a\u{7F}", "ab"]
        let records = names.map { name in
            let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
            record["title"] = "title of " + name.unicodeScalars.map { String($0.value) }.joined(separator: ",")
            return record
        }
        try await OpsTestKit.save(records, in: database)
        for record in records {
            let fetched = try await database.record(for: record.recordID)
            #expect(fetched.recordID.recordName == record.recordID.recordName)
            #expect(fetched["title"] as? String == record["title"] as? String)
        }
        let changes = try await database.recordZoneChanges(inZoneWith: zoneID, since: nil)
        let listed = changes.modificationResultsByID.keys.map(\.recordName)
        #expect(Set(listed) == Set(names + ["keep"]))
        #expect(listed.count == names.count + 1)
    }

    // MARK: Zone names

    @Test(arguments: [
        ("", "empty"),
        (String(repeating: "z", count: 256), "256"),
        ("Zöne", "Zöne"),
    ])
    func badZoneNamesAreRejectedAndOtherZonesOfTheRequestAreUnaffected(name: String, mention: String) async throws {
        let (database, zoneID, keep) = try await AdversarialKit.fixture()
        let bad = CKRecordZone.ID(zoneName: name)
        let results = try await database.modifyRecordZones(
            saving: [CKRecordZone(zoneID: bad), CKRecordZone(zoneName: "Fine")], deleting: [])
        let error = try #require(
            results.saveResults[bad].flatMap { result -> (any Error)? in
                if case .failure(let error) = result { return error }
                return nil
            })
        #expect(OpsTestKit.code(error) == .invalidArguments)
        #expect(error.localizedDescription.contains(mention), "\(error.localizedDescription)")
        #expect(OpsTestKit.code(results.saveResults[CKRecordZone.ID(zoneName: "Fine")]) == nil)
        // The bad zone does not exist; the existing zone and its record are untouched.
        let fetchError = await #expect(throws: CKError.self) { try await database.recordZone(for: bad) }
        #expect(fetchError?.code == .zoneNotFound)
        #expect(try await database.recordZone(for: zoneID).zoneID == zoneID)
        try await AdversarialKit.expectIntact(keep, in: database)
    }

    @Test func savingIntoAZoneThatDoesNotExistNamesTheZoneAndWritesNothing() async throws {
        let (database, _, keep) = try await AdversarialKit.fixture()
        let missing = CKRecordZone.ID(zoneName: "Nowhere")
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "lost", zoneID: missing))
        record["title"] = "x"
        let results = await AdversarialKit.modify(database, saving: [record])
        #expect(OpsTestKit.code(results.saves[record.recordID]) == .zoneNotFound)
        #expect(AdversarialKit.message(results.saves[record.recordID]).contains("Nowhere"))
        let error = await #expect(throws: CKError.self) { try await database.recordZone(for: missing) }
        #expect(error?.code == .zoneNotFound)
        try await AdversarialKit.expectIntact(keep, in: database)
    }

    // MARK: Field names

    @Test(arguments: [
        ("_private", "_private"),
        ("1st", "1st"),
        ("with-dash", "with-dash"),
        ("with space", "with space"),
        ("ünïcode", "ünïcode"),
        (String(repeating: "f", count: 256), "256"),
        ("", "empty"),
    ])
    func badFieldNamesAreRejected(field: String, mention: String) async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: zone))
                record[field] = "value"
                return record
            }, code: .invalidArguments, mentions: [mention])
    }

    @Test func fieldNamesAtTheLimitAreAccepted() async throws {
        let (database, zoneID, _) = try await AdversarialKit.fixture()
        let long = String(repeating: "f", count: 255)
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "fields", zoneID: zoneID))
        record[long] = "long"
        record["a_1"] = "underscore inside"
        record["Z9"] = "digits"
        try await OpsTestKit.save([record], in: database)
        let fetched = try await database.record(for: record.recordID)
        #expect(fetched[long] as? String == "long")
        #expect(fetched["a_1"] as? String == "underscore inside")
        #expect(fetched["Z9"] as? String == "digits")
    }

    // MARK: Record types

    @Test(arguments: [
        ("", "empty"),
        ("_Type", "_Type"),
        ("1Type", "1Type"),
        ("Bad-Type", "Bad-Type"),
        ("Typé", "Typé"),
        (String(repeating: "T", count: 256), "TTTT"),
    ])
    func badRecordTypesAreRejected(type: String, mention: String) async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                let record = CKRecord(recordType: type, recordID: CKRecord.ID(recordName: "bad", zoneID: zone))
                record["title"] = "x"
                return record
            }, code: .invalidArguments, mentions: [mention])
    }

    @Test func savingAnExistingRecordAsAnotherTypeIsRejected() async throws {
        let (database, zoneID, keep) = try await AdversarialKit.fixture()
        let task = CKRecord(recordType: "Task", recordID: CKRecord.ID(recordName: "keep", zoneID: zoneID))
        task["title"] = "as a task"
        for policy in [CKModifyRecordsOperation.RecordSavePolicy.changedKeys, .allKeys] {
            let results = await AdversarialKit.modify(database, saving: [task], policy: policy)
            #expect(OpsTestKit.code(results.saves[task.recordID]) == .invalidArguments)
            let text = AdversarialKit.message(results.saves[task.recordID])
            #expect(text.contains("keep") && text.contains("Note") && text.contains("Task"), "\(text)")
        }
        try await AdversarialKit.expectIntact(keep, in: database)
    }

    // MARK: Values

    @Test func aValueOfAnUnsupportedTypeIsRejectedNamingFieldAndType() async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: zone))
                record.setValue(URL(string: "https://example.com")!, forKey: "link")
                return record
            }, code: .invalidArguments, mentions: ["link", "URL"])
    }

    @Test func aListMixingTypesIsRejected() async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: zone))
                record["mixed"] = [NSNumber(value: 1), NSString(string: "one")] as NSArray
                return record
            }, code: .invalidArguments, mentions: ["mixed", "a list mixing"])
    }

    @Test func aNestedListIsRejected() async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: zone))
                record["nested"] = [[1, 2], [3]]
                return record
            }, code: .invalidArguments, mentions: ["nested", "a list inside a list"])
    }

    @Test func anUnsignedValueAboveInt64MaxIsRejected() async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: zone))
                record["huge"] = UInt64.max
                return record
            }, code: .invalidArguments, mentions: ["huge", "18446744073709551615", "Int64.max"])
    }

    /// The just-in-time schema fixes a field's type at its first save; a later value of another
    /// type names the field and both types.
    @Test func aValueOfAnotherTypeThanTheSchemaIsRejected() async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: zone))
                record["count"] = "one"
                return record
            }, code: .invalidArguments, mentions: ["count", "NUMBER", "STRING"])
    }

    /// An empty list leaves the element type open; the first non-empty list fixes it.
    @Test func anEmptyListFieldTakesTheTypeOfTheFirstNonEmptyList() async throws {
        let (database, zoneID, _) = try await AdversarialKit.fixture()
        func record(_ name: String, _ tags: any CKRecordValue) -> CKRecord {
            let record = CKRecord(recordType: "Tagged", recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
            record["tags"] = tags
            return record
        }
        try await OpsTestKit.save([record("empty", [String]())], in: database)
        try await OpsTestKit.save([record("strings", ["a", "b"])], in: database)
        let error = await #expect(throws: CKError.self) {
            try await OpsTestKit.save([record("numbers", [1, 2])], in: database)
        }
        #expect(error?.code == .invalidArguments)
        #expect(error?.localizedDescription.contains("tags") == true)
        #expect(
            try await database.record(for: CKRecord.ID(recordName: "strings", zoneID: zoneID))["tags"] as? [String] == [
                "a", "b",
            ])
    }

    // MARK: References and parents

    @Test func aReferenceToAnotherZoneIsRejectedNamingFieldAndZones() async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: zone))
                let elsewhere = CKRecord.ID(recordName: "target", zoneID: CKRecordZone.ID(zoneName: "Other"))
                record["link"] = CKRecord.Reference(recordID: elsewhere, action: .none)
                return record
            }, code: .invalidArguments, mentions: ["link", "Other"])
    }

    @Test func aListOfReferencesWithOneToAnotherZoneIsRejected() async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: zone))
                let here = CKRecord.ID(recordName: "keep", zoneID: zone)
                let elsewhere = CKRecord.ID(recordName: "target", zoneID: .default)
                record["links"] = [
                    CKRecord.Reference(recordID: here, action: .none),
                    CKRecord.Reference(recordID: elsewhere, action: .deleteSelf),
                ]
                return record
            }, code: .invalidArguments, mentions: ["links", "_defaultZone"])
    }

    @Test func aParentWithDeleteSelfIsRejected() async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: zone))
                record.parent = CKRecord.Reference(
                    recordID: CKRecord.ID(recordName: "keep", zoneID: zone), action: .deleteSelf)
                return record
            }, code: .invalidArguments, mentions: ["bad", "deleteSelf"])
    }

    @Test func aParentInAnotherZoneIsRejected() async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: zone))
                record.setParent(CKRecord.ID(recordName: "keep", zoneID: .default))
                return record
            }, code: .invalidArguments, mentions: ["bad", "zone"])
    }

    @Test func aMissingParentIsAReferenceViolationNamingIt() async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: zone))
                record.setParent(CKRecord.ID(recordName: "ghost", zoneID: zone))
                return record
            }, code: .referenceViolation, mentions: ["bad", "ghost"])
    }

    // MARK: Sizes

    @Test func aStringOf1000001BytesIsRejected() async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: zone))
                record["body"] = String(repeating: "x", count: 1_000_001)
                return record
            }, code: .limitExceeded, mentions: ["bad", "1000000"])
    }

    @Test func dataOf1000001BytesIsRejected() async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: zone))
                record["blob"] = Data(count: 1_000_001)
                return record
            }, code: .limitExceeded, mentions: ["bad"])
    }

    @Test func aRecordJustUnderTheLimitIsAccepted() async throws {
        let (database, zoneID, _) = try await AdversarialKit.fixture()
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "big", zoneID: zoneID))
        record["b"] = String(repeating: "x", count: 999_000)
        try await OpsTestKit.save([record], in: database)
        #expect((try await database.record(for: record.recordID)["b"] as? String)?.utf8.count == 999_000)
    }

    /// Two fields that each fit but together exceed 1 MB on the server: the update is refused and
    /// the stored record keeps its fields.
    @Test func anUpdateThatGrowsTheStoredRecordPastTheLimitIsRejected() async throws {
        let (database, zoneID, _) = try await AdversarialKit.fixture()
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "big", zoneID: zoneID))
        record["a"] = String(repeating: "a", count: 600_000)
        let stored = try #require(try await OpsTestKit.save([record], in: database).first)
        let partial = try #require(
            try await database.records(for: [record.recordID], desiredKeys: ["title"])[record.recordID]?.get())
        partial["b"] = String(repeating: "b", count: 600_000)
        let results = await AdversarialKit.modify(database, saving: [partial], policy: .changedKeys)
        #expect(OpsTestKit.code(results.saves[record.recordID]) == .limitExceeded)
        #expect(AdversarialKit.message(results.saves[record.recordID]).contains("big"))
        try await AdversarialKit.expectIntact(stored, in: database)
    }

    // MARK: Request shapes

    @Test func exactly400ItemsAreAcceptedAnd401AreRefusedWithNothingApplied() async throws {
        let (database, zoneID, keep) = try await AdversarialKit.fixture()
        func batch(_ prefix: String, _ count: Int) -> [CKRecord] {
            (0..<count).map { i in
                let record = CKRecord(
                    recordType: "Note", recordID: CKRecord.ID(recordName: "\(prefix)\(i)", zoneID: zoneID))
                record["count"] = i
                return record
            }
        }
        let four = batch("ok", 400)
        let saved = await AdversarialKit.modify(database, saving: four)
        #expect(OpsTestKit.code(saved.final) == nil)
        #expect(saved.saves.values.allSatisfy { OpsTestKit.code($0) == nil } && saved.saves.count == 400)

        let edit = try await database.record(for: keep.recordID)
        edit["title"] = "edited"
        let tooMany = await AdversarialKit.modify(database, saving: batch("no", 400) + [edit])
        #expect(OpsTestKit.code(tooMany.final) == .limitExceeded)
        #expect(AdversarialKit.message(tooMany.final).contains("401"))
        #expect(AdversarialKit.message(tooMany.final).contains("400"))
        #expect(tooMany.saves.isEmpty)
        let fetched = try await database.records(for: [CKRecord.ID(recordName: "no0", zoneID: zoneID)])
        #expect(OpsTestKit.code(fetched.values.first) == .unknownItem)
        try await AdversarialKit.expectIntact(keep, in: database)

        // Saves and deletes count together.
        let mixed = await AdversarialKit.modify(
            database, saving: batch("mix", 200), deleting: four.prefix(201).map(\.recordID))
        #expect(OpsTestKit.code(mixed.final) == .limitExceeded)
        #expect(OpsTestKit.code(try await database.records(for: [four[0].recordID]).values.first) == nil)

        // Fetches: 400 IDs are fine, 401 are refused.
        let ids = four.map(\.recordID)
        #expect(try await database.records(for: ids).count == 400)
        let error = await #expect(throws: CKError.self) {
            try await database.records(for: ids + [keep.recordID])
        }
        #expect(error?.code == .limitExceeded)
    }

    @Test func theSameRecordSavedAndDeletedInOneRequestIsRefusedWholesale() async throws {
        let (database, zoneID, keep) = try await AdversarialKit.fixture()
        let edit = try await database.record(for: keep.recordID)
        edit["title"] = "edited"
        let bystander = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "bystander", zoneID: zoneID))
        bystander["title"] = "new"
        let results = await AdversarialKit.modify(
            database, saving: [bystander, edit], deleting: [keep.recordID], atomic: false)
        #expect(OpsTestKit.code(results.final) == .invalidArguments)
        #expect(AdversarialKit.message(results.final).contains("keep"))
        #expect(results.saves.isEmpty && results.deletes.isEmpty)
        try await AdversarialKit.expectIntact(keep, in: database)
        let fetched = try await database.records(for: [bystander.recordID])
        #expect(OpsTestKit.code(fetched.values.first) == .unknownItem)
    }

    @Test func theSameRecordSavedTwiceOrDeletedTwiceIsRefused() async throws {
        let (database, _, keep) = try await AdversarialKit.fixture()
        let first = try await database.record(for: keep.recordID)
        first["title"] = "first"
        let second = try await database.record(for: keep.recordID)
        second["title"] = "second"
        let twice = await AdversarialKit.modify(database, saving: [first, second], atomic: false)
        #expect(OpsTestKit.code(twice.final) == .invalidArguments)
        #expect(AdversarialKit.message(twice.final).contains("keep"))
        let deletes = await AdversarialKit.modify(database, deleting: [keep.recordID, keep.recordID], atomic: false)
        #expect(OpsTestKit.code(deletes.final) == .invalidArguments)
        try await AdversarialKit.expectIntact(keep, in: database)
    }

    @Test func deletingWithAMalformedNameFailsPerItemAndDeletesNothingElse() async throws {
        let (database, zoneID, keep) = try await AdversarialKit.fixture()
        let bad = CKRecord.ID(recordName: "_bad", zoneID: zoneID)
        let results = await AdversarialKit.modify(database, deleting: [bad, keep.recordID])
        #expect(OpsTestKit.code(results.deletes[bad]) == .invalidArguments)
        #expect(AdversarialKit.message(results.deletes[bad]).contains("_bad"))
        #expect(OpsTestKit.code(results.deletes[keep.recordID]) == .batchRequestFailed)
        try await AdversarialKit.expectIntact(keep, in: database)
    }

    @Test func anAssetWhoseFileIsMissingIsRejectedNamingTheField() async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: zone))
                let missing = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "stratus-missing-\(UUID().uuidString)")
                record["attachment"] = CKAsset(fileURL: missing)
                return record
            }, code: .assetFileNotFound, mentions: ["attachment"])
    }
}
