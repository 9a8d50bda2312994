import Foundation
import Stratus
import Testing

/// CloudKit's limit of 750 `deleteSelf` referrers per record (decision 0004, rule 11), attacked
/// from the sides the conformance case does not cover: saves that fail for another reason,
/// lists, actions, schema, atomic and non-atomic zones.
@Suite struct DeleteSelfLimitTests {
    static let limit = 750

    /// A record named `name` in `zoneID`, referring to each of `targets` with `action` in field
    /// "owner", or in the list field "owners" when there are several.
    static func referrer(
        _ name: String, zoneID: CKRecordZone.ID, to targets: [String], action: CKRecord.ReferenceAction = .deleteSelf
    ) -> CKRecord {
        let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
        let references = targets.map {
            CKRecord.Reference(recordID: CKRecord.ID(recordName: $0, zoneID: zoneID), action: action)
        }
        if references.count == 1 {
            record["owner"] = references[0]
        } else {
            record["owners"] = references
        }
        return record
    }

    /// Saves `records` in requests of at most 375 records.
    static func saveInBatches(_ records: [CKRecord], in database: CKDatabase) async throws {
        var start = 0
        while start < records.count {
            let end = min(start + 375, records.count)
            try await OpsTestKit.save(Array(records[start..<end]), in: database)
            start = end
        }
    }

    /// A database with zone "Z" (or the default zone) holding the records `targets` and, for
    /// each, `limit` referrers named `<target>-<n>`.
    static func fixture(
        targets: [String], referrers: Int = limit, defaultZone: Bool = false
    ) async throws -> (CKDatabase, CKRecordZone.ID) {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = defaultZone ? CKRecordZone.default().zoneID : try await OpsTestKit.makeZone("Z", in: database)
        try await OpsTestKit.save(
            targets.map { CKRecord(recordType: "Target", recordID: CKRecord.ID(recordName: $0, zoneID: zoneID)) },
            in: database)
        for target in targets {
            try await saveInBatches(
                (0..<referrers).map { referrer("\(target)-\($0)", zoneID: zoneID, to: [target]) }, in: database)
        }
        return (database, zoneID)
    }

    /// The names of the stored records among `names` whose "owner" or "owners" refers to
    /// `target` with `deleteSelf`.
    static func referrers(
        of target: String, among names: [String], zoneID: CKRecordZone.ID, in database: CKDatabase
    ) async throws -> Set<String> {
        var found = Set<String>()
        var start = 0
        while start < names.count {
            let end = min(start + 375, names.count)
            let ids = names[start..<end].map { CKRecord.ID(recordName: $0, zoneID: zoneID) }
            for (id, result) in try await database.records(for: ids) {
                guard let record = try? result.get() else { continue }
                let references: [CKRecord.Reference]
                if let one = record["owner"] as? CKRecord.Reference {
                    references = [one]
                } else {
                    references = record["owners"] as? [CKRecord.Reference] ?? []
                }
                if references.contains(where: { $0.recordID.recordName == target && $0.action == .deleteSelf }) {
                    found.insert(id.recordName)
                }
            }
            start = end
        }
        return found
    }

    /// A save that would move its reference from A to a full B fails; the reference to A it
    /// would have dropped stays, so it does not free a place for a new referrer of A in the
    /// same request: A must not end with 751 referrers.
    @Test func aRefusedSaveDoesNotFreeThePlaceOfTheReferenceItWouldDrop() async throws {
        let (database, zoneID) = try await Self.fixture(targets: ["A", "B"])
        let moved = try await database.record(for: CKRecord.ID(recordName: "A-0", zoneID: zoneID))
        moved["owner"] = CKRecord.Reference(
            recordID: CKRecord.ID(recordName: "B", zoneID: zoneID), action: .deleteSelf)
        let newcomer = Self.referrer("A-new", zoneID: zoneID, to: ["A"])
        let results = await AdversarialKit.modify(database, saving: [moved, newcomer], atomic: false)
        #expect(OpsTestKit.code(results.saves[moved.recordID]) == .limitExceeded)
        let names = (0..<Self.limit).map { "A-\($0)" } + ["A-new"]
        let referrers = try await Self.referrers(of: "A", among: names, zoneID: zoneID, in: database)
        #expect(referrers.count <= Self.limit, "A has \(referrers.count) deleteSelf referrers")
        #expect(OpsTestKit.code(results.saves[newcomer.recordID]) == .limitExceeded)
    }

    /// A save that drops its reference to A but fails because its parent (saved in the same
    /// request) fails does not free a place for a new referrer of A either.
    @Test func anOrphanedSaveDoesNotFreeThePlaceOfTheReferenceItWouldDrop() async throws {
        let (database, zoneID) = try await Self.fixture(targets: ["A"])
        let typed = CKRecord(recordType: "Target", recordID: CKRecord.ID(recordName: "typed", zoneID: zoneID))
        typed["count"] = 1
        try await OpsTestKit.save([typed], in: database)
        let parent = CKRecord(recordType: "Target", recordID: CKRecord.ID(recordName: "parent", zoneID: zoneID))
        parent["count"] = "not a number"  // fails: "count" is a NUMBER field
        let moved = try await database.record(for: CKRecord.ID(recordName: "A-0", zoneID: zoneID))
        moved["owner"] = nil
        moved.setParent(parent.recordID)
        let newcomer = Self.referrer("A-new", zoneID: zoneID, to: ["A"])
        let results = await AdversarialKit.modify(database, saving: [parent, moved, newcomer], atomic: false)
        #expect(OpsTestKit.code(results.saves[parent.recordID]) == .invalidArguments)
        #expect(OpsTestKit.code(results.saves[moved.recordID]) == .referenceViolation)
        let names = (0..<Self.limit).map { "A-\($0)" } + ["A-new"]
        let referrers = try await Self.referrers(of: "A", among: names, zoneID: zoneID, in: database)
        #expect(referrers.count <= Self.limit, "A has \(referrers.count) deleteSelf referrers")
        #expect(OpsTestKit.code(results.saves[newcomer.recordID]) == .limitExceeded)
    }

    /// A parent refused by the limit takes its child (saved with it) down with
    /// `referenceViolation`; an unrelated save of the same non-atomic request is stored.
    @Test func aChildOfASaveRefusedByTheLimitIsRefusedToo() async throws {
        let (database, zoneID) = try await Self.fixture(targets: ["A"])
        let parent = Self.referrer("parent", zoneID: zoneID, to: ["A"])
        let child = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "child", zoneID: zoneID))
        child.setParent(parent.recordID)
        let other = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "other", zoneID: zoneID))
        let results = await AdversarialKit.modify(database, saving: [child, parent, other], atomic: false)
        #expect(OpsTestKit.code(results.saves[parent.recordID]) == .limitExceeded)
        #expect(OpsTestKit.code(results.saves[child.recordID]) == .referenceViolation)
        #expect(OpsTestKit.code(results.saves[other.recordID]) == nil)
        let fetched = try await database.records(for: [parent.recordID, child.recordID])
        #expect(fetched.values.allSatisfy { OpsTestKit.code($0) == .unknownItem })
    }

    /// A list holding several `deleteSelf` references to one target makes one referrer.
    @Test func aListWithSeveralReferencesToOneTargetCountsOnce() async throws {
        let (database, zoneID) = try await Self.fixture(targets: ["A"], referrers: Self.limit - 1)
        let list = Self.referrer("A-list", zoneID: zoneID, to: ["A", "A", "A"])
        let results = await AdversarialKit.modify(database, saving: [list])
        #expect(OpsTestKit.code(results.saves[list.recordID]) == nil)
        let over = Self.referrer("A-over", zoneID: zoneID, to: ["A"])
        let refused = await AdversarialKit.modify(database, saving: [over])
        #expect(OpsTestKit.code(refused.saves[over.recordID]) == .limitExceeded)
        let message = AdversarialKit.message(refused.saves[over.recordID])
        #expect(message.contains("A-over") && message.contains("'A'") && message.contains("751"), "\(message)")
    }

    /// References with action `.none` do not count, and turning a referrer's `.deleteSelf` into
    /// `.none` frees its place in the same request.
    @Test func referencesWithActionNoneDoNotCount() async throws {
        let (database, zoneID) = try await Self.fixture(targets: ["A"])
        let plain = Self.referrer("A-plain", zoneID: zoneID, to: ["A", "A"], action: .none)
        let calmed = try await database.record(for: CKRecord.ID(recordName: "A-0", zoneID: zoneID))
        calmed["owner"] = CKRecord.Reference(
            recordID: CKRecord.ID(recordName: "A", zoneID: zoneID), action: .none)
        let newcomer = Self.referrer("A-new", zoneID: zoneID, to: ["A"])
        let results = await AdversarialKit.modify(database, saving: [plain, newcomer, calmed])
        for id in [plain.recordID, calmed.recordID, newcomer.recordID] {
            #expect(OpsTestKit.code(results.saves[id]) == nil, "\(id.recordName)")
        }
        let again = Self.referrer("A-again", zoneID: zoneID, to: ["A"])
        let refused = await AdversarialKit.modify(database, saving: [again])
        #expect(OpsTestKit.code(refused.saves[again.recordID]) == .limitExceeded)
    }

    /// Deletes in the same request are not subtracted (they run after the saves); deleting a
    /// referrer in one request frees a place for the next.
    @Test func deletingAReferrerFreesAPlaceForTheNextRequest() async throws {
        let (database, zoneID) = try await Self.fixture(targets: ["A"])
        let newcomer = Self.referrer("A-new", zoneID: zoneID, to: ["A"])
        let gone = CKRecord.ID(recordName: "A-0", zoneID: zoneID)
        let together = await AdversarialKit.modify(database, saving: [newcomer], deleting: [gone])
        #expect(OpsTestKit.code(together.saves[newcomer.recordID]) == .limitExceeded)
        #expect(OpsTestKit.code(together.deletes[gone]) == .batchRequestFailed)
        let deleted = await AdversarialKit.modify(database, deleting: [gone])
        #expect(OpsTestKit.code(deleted.deletes[gone]) == nil)
        let after = await AdversarialKit.modify(database, saving: [newcomer])
        #expect(OpsTestKit.code(after.saves[newcomer.recordID]) == nil)
    }

    /// A target created in the same request as its referrers has none stored: they count from
    /// zero, in request order across requests.
    @Test func aTargetCreatedWithItsReferrersCountsFromZero() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        let target = CKRecord(recordType: "Target", recordID: CKRecord.ID(recordName: "T", zoneID: zoneID))
        try await OpsTestKit.save(
            [target] + (0..<374).map { Self.referrer("T-\($0)", zoneID: zoneID, to: ["T"]) }, in: database)
        try await Self.saveInBatches(
            (374..<Self.limit).map { Self.referrer("T-\($0)", zoneID: zoneID, to: ["T"]) }, in: database)
        let over = Self.referrer("T-over", zoneID: zoneID, to: ["T"])
        let refused = await AdversarialKit.modify(database, saving: [over])
        #expect(OpsTestKit.code(refused.saves[over.recordID]) == .limitExceeded)
    }

    /// In the default zone (never atomic) the 751st referrer is refused and the rest of the
    /// request is stored; the refused save writes nothing, not even the type of a new field.
    @Test func inTheDefaultZoneOnlyTheRefusedSaveFailsAndItLeavesNoSchema() async throws {
        let (database, zoneID) = try await Self.fixture(targets: ["A"], defaultZone: true)
        let over = Self.referrer("A-over", zoneID: zoneID, to: ["A"])
        over["extra"] = "text"
        let fine = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "fine", zoneID: zoneID))
        fine["title"] = "kept"
        let results = await AdversarialKit.modify(database, saving: [over, fine])
        #expect(OpsTestKit.code(results.saves[over.recordID]) == .limitExceeded)
        #expect(OpsTestKit.code(results.saves[fine.recordID]) == nil)
        let fetched = try await database.records(for: [over.recordID, fine.recordID])
        #expect(OpsTestKit.code(fetched[over.recordID]) == .unknownItem)
        #expect((try? fetched[fine.recordID]?.get())?["title"] as? String == "kept")
        // "extra" was not fixed as a STRING by the refused save.
        let typed = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "typed", zoneID: zoneID))
        typed["extra"] = 5
        try await OpsTestKit.save([typed], in: database)
    }

    /// In an atomic zone the refused save fails with limitExceeded, the others with
    /// batchRequestFailed, and nothing is written.
    @Test func inAnAtomicZoneTheWholeRequestFails() async throws {
        let (database, zoneID) = try await Self.fixture(targets: ["A"])
        let edited = try await database.record(for: CKRecord.ID(recordName: "A-1", zoneID: zoneID))
        edited["note"] = "edited"
        let over = Self.referrer("A-over", zoneID: zoneID, to: ["A"])
        let results = await AdversarialKit.modify(database, saving: [edited, over])
        #expect(OpsTestKit.code(results.saves[over.recordID]) == .limitExceeded)
        #expect(OpsTestKit.code(results.saves[edited.recordID]) == .batchRequestFailed)
        let fetched = try await database.record(for: edited.recordID)
        #expect(fetched.object(forKey: "note") == nil)
        #expect(fetched.recordChangeTag != nil)
    }
}
