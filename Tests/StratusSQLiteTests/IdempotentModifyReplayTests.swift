import Foundation
import Testing

@testable import Stratus

/// A retried idempotent modify (decision 0014.11) answers the journaled outcome, on a real
/// SQLite file. The journal keeps each saved record as the change-log entry the modify stored
/// (not encoded a second time): the replayed records must be the records first answered, to
/// the last field, and failures and deletions must come back as they were.
@Suite struct IdempotentModifyReplayTests {
    static let zone = CKRecordZone.ID(zoneName: CKRecordZone.ID.defaultZoneName)

    @Test func aRetryAnswersTheSameRecordsFailuresAndDeletionsWithoutApplyingAgain() throws {
        let store = try JournalTestStore()
        defer { store.destroy() }
        let context = try store.engine.database(
            namespace: JournalTestStore.owner, scope: .private, caller: Caller(userRecordName: "_alice", role: .user))
        let gone = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "gone"))
        gone["title"] = "to delete"
        _ = try context.modifyRecords(
            ModifyRequest(records: [gone], deletes: [], policy: .allKeys, atomic: false, clientChangeTokenData: nil))

        let request = ModifyRequest(
            records: Self.records(), deletes: [gone.recordID], policy: .allKeys, atomic: false,
            clientChangeTokenData: nil)
        let first = try store.journal().idempotentModify("retry", fingerprint: [7], context: context, request: request)
        let retry = try store.journal().idempotentModify("retry", fingerprint: [7], context: context, request: request)

        #expect(first.saveResults.count == 3 && retry.saveResults.count == 3)
        for (answered, replayed) in zip(first.saveResults, retry.saveResults) {
            #expect(answered.0 == replayed.0)
            switch (answered.1, replayed.1) {
            case (.success(let a), .success(let b)):
                #expect(Self.summary(a) == Self.summary(b), "\(a.recordID.recordName)")
                #expect(a.state.withLock { $0.values } == b.state.withLock { $0.values }, "\(a.recordID.recordName)")
            case (.failure(let a), .failure(let b)):
                #expect(a.code == b.code && a.message == b.message)
            default:
                Issue.record("\(answered.0.recordName): \(answered.1) first, \(replayed.1) on the retry")
            }
        }
        guard case .failure(let error) = first.saveResults[2].1 else {
            Issue.record("a field of another type must fail")
            return
        }
        #expect(error.code == .invalidArguments)
        #expect(retry.deleteResults.count == 1 && (try? retry.deleteResults[0].1.get()) != nil)
        // Not applied again: the stored change tags are still those first answered.
        let stored = try context.fetchRecords(
            ["parent", "child"].map { CKRecord.ID(recordName: $0) }, desiredKeys: [])
        for (index, (_, result)) in stored.enumerated() {
            let tag = try #require(try? first.saveResults[index].1.get()).recordChangeTag
            #expect(try result.get().recordChangeTag == tag)
        }
    }

    /// A parent and a child holding a field of every plain kind, then a save whose field has
    /// the wrong type (it fails).
    static func records() -> [CKRecord] {
        let parent = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "parent"))
        parent["title"] = "the parent"
        let child = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "child"))
        child["title"] = "a child é"
        child["count"] = 42
        child["score"] = 2.5
        child["when"] = Date(timeIntervalSinceReferenceDate: 812_345_678.123_456)
        child["blob"] = Data([0, 1, 2, 255])
        child["tags"] = ["a", "b"]
        child["numbers"] = [1, 2, 3]
        child["link"] = CKRecord.Reference(recordID: parent.recordID, action: .deleteSelf)
        child.parent = CKRecord.Reference(recordID: parent.recordID, action: .none)
        let wrong = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "wrong"))
        wrong["title"] = 7
        return [parent, child, wrong]
    }

    /// A saved record's system fields, compared as text.
    static func summary(_ record: CKRecord) -> String {
        [
            record.recordType, record.recordChangeTag ?? "-",
            "\(record.creationDate?.timeIntervalSinceReferenceDate ?? -1)",
            "\(record.modificationDate?.timeIntervalSinceReferenceDate ?? -1)",
            record.creatorUserRecordID?.recordName ?? "-", record.lastModifiedUserRecordID?.recordName ?? "-",
            record.parent?.recordID.recordName ?? "-",
        ].joined(separator: "|")
    }
}
