import Foundation
import Stratus
import Testing

/// Parents saved in the same request, and deleteSelf cascades.
@Suite struct AdversarialReferenceTests {
    /// A child whose parent is saved in the same request must not be saved when the parent's
    /// own save fails: that would leave a parent reference to a record that does not exist.
    @Test func aChildWhoseParentFailsInTheSameRequestFailsToo() async throws {
        let (database, zoneID, keep) = try await AdversarialKit.fixture()
        func record(_ name: String) -> CKRecord {
            CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
        }
        let parent = record("parent")
        parent["count"] = "not a number"  // "count" is a NUMBER field: the parent fails
        let child = record("child")
        child.setParent(parent.recordID)
        child["childOnly"] = "text"
        let grandchild = record("grandchild")
        grandchild.setParent(child.recordID)
        let sibling = record("sibling")
        sibling.setParent(keep.recordID)
        // The grandchild comes first: the order of the request must not matter.
        let results = await AdversarialKit.modify(
            database, saving: [grandchild, parent, child, sibling], atomic: false)
        #expect(OpsTestKit.code(results.saves[parent.recordID]) == .invalidArguments)
        #expect(OpsTestKit.code(results.saves[child.recordID]) == .referenceViolation)
        #expect(OpsTestKit.code(results.saves[grandchild.recordID]) == .referenceViolation)
        let message = AdversarialKit.message(results.saves[child.recordID])
        #expect(message.contains("child") && message.contains("parent"), "\(message)")
        #expect(OpsTestKit.code(results.saves[sibling.recordID]) == nil)

        let fetched = try await database.records(for: [child.recordID, grandchild.recordID])
        #expect(fetched.values.allSatisfy { OpsTestKit.code($0) == .unknownItem })
        // The failed child's new field did not fix the field's type in the schema.
        let other = record("other")
        other["childOnly"] = 5
        try await OpsTestKit.save([other], in: database)
        try await AdversarialKit.expectIntact(keep, in: database)
    }

    /// A request that saves a record with a `deleteSelf` reference to a record it also deletes
    /// reports the save as a success, then the cascade deletes the record (decision 0004, 6):
    /// it cannot be fetched afterwards, and the next change fetch reports its deletion.
    @Test func aRecordSavedWithADeleteSelfReferenceToARecordTheRequestDeletesIsCascaded() async throws {
        let (database, zoneID, keep) = try await AdversarialKit.fixture()
        let token = try await database.recordZoneChanges(inZoneWith: zoneID, since: nil).changeToken
        let child = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "child", zoneID: zoneID))
        child["owner"] = CKRecord.Reference(recordID: keep.recordID, action: .deleteSelf)
        let results = await AdversarialKit.modify(database, saving: [child], deleting: [keep.recordID])
        #expect(OpsTestKit.code(results.saves[child.recordID]) == nil)
        #expect(OpsTestKit.code(results.deletes[keep.recordID]) == nil)
        #expect(OpsTestKit.code(results.final) == nil)

        let fetched = try await database.records(for: [child.recordID, keep.recordID])
        #expect(fetched.values.allSatisfy { OpsTestKit.code($0) == .unknownItem })
        let changes = try await database.recordZoneChanges(inZoneWith: zoneID, since: token)
        #expect(changes.modificationResultsByID.isEmpty)
        #expect(Set(changes.deletions.map(\.recordID)) == [child.recordID, keep.recordID])
    }

    /// In an atomic zone the culprit keeps its error and the children get batchRequestFailed.
    @Test func inAnAtomicZoneTheChildrenOfAFailedParentGetBatchRequestFailed() async throws {
        let (database, zoneID, keep) = try await AdversarialKit.fixture()
        let parent = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "parent", zoneID: zoneID))
        parent["count"] = "not a number"
        let child = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "child", zoneID: zoneID))
        child.setParent(parent.recordID)
        let results = await AdversarialKit.modify(database, saving: [parent, child])
        #expect(OpsTestKit.code(results.saves[parent.recordID]) == .invalidArguments)
        #expect(OpsTestKit.code(results.saves[child.recordID]) == .batchRequestFailed)
        try await AdversarialKit.expectIntact(keep, in: database)
    }

    /// Deleting a record with more deleteSelf referrers than one index page (256), one of them
    /// owning a record through a list of references, deletes them all in the same commit; a
    /// referrer with action none survives; only the requested deletion is reported.
    @Test func aCascadeOverManyReferrersAndThroughAListReference() async throws {
        let (database, zoneID, keep) = try await AdversarialKit.fixture()
        let token = try await database.recordZoneChanges(inZoneWith: zoneID, since: nil).changeToken
        let children = (0..<300).map { i in
            let child = CKRecord(recordType: "Child", recordID: CKRecord.ID(recordName: "c\(i)", zoneID: zoneID))
            child["owner"] = CKRecord.Reference(recordID: keep.recordID, action: .deleteSelf)
            return child
        }
        for start in stride(from: 0, to: children.count, by: 150) {
            try await OpsTestKit.save(Array(children[start..<start + 150]), in: database)
        }
        let grand = CKRecord(recordType: "Child", recordID: CKRecord.ID(recordName: "grand", zoneID: zoneID))
        grand["owners"] = [
            CKRecord.Reference(recordID: CKRecord.ID(recordName: "c5", zoneID: zoneID), action: .deleteSelf)
        ]
        let loose = CKRecord(recordType: "Child", recordID: CKRecord.ID(recordName: "loose", zoneID: zoneID))
        loose["owner"] = CKRecord.Reference(recordID: keep.recordID, action: .none)
        try await OpsTestKit.save([grand, loose], in: database)

        let results = await AdversarialKit.modify(database, deleting: [keep.recordID])
        #expect(results.deletes.count == 1 && OpsTestKit.code(results.deletes[keep.recordID]) == nil)
        let changes = try await database.recordZoneChanges(inZoneWith: zoneID, since: token, resultsLimit: 2000)
        let deleted = changes.deletions.map(\.recordID.recordName)
        #expect(Set(deleted) == Set(children.map(\.recordID.recordName) + ["grand", "keep"]))
        #expect(deleted.count == Set(deleted).count)
        #expect(Set(changes.modificationResultsByID.keys.map(\.recordName)) == ["loose"])
        let survivor = try await database.record(for: loose.recordID)
        #expect((survivor["owner"] as? CKRecord.Reference)?.recordID == keep.recordID)
    }
}
