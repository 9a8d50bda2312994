import Foundation
import Stratus
import StratusInMemory
import Testing

@Suite struct DatabaseConvenienceTests {
    @Test func asyncSaveFetchDeleteRoundTrip() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let record = CKRecord(recordType: "Note")
        record["title"] = "hello"
        record["count"] = 3

        let saved = try await database.save(record)
        #expect(saved.recordChangeTag != nil)
        #expect(saved.creationDate != nil)

        let fetched = try await database.record(for: record.recordID)
        #expect(fetched["title"] as? String == "hello")
        #expect(fetched["count"] as? Int == 3)
        #expect(fetched.recordChangeTag == saved.recordChangeTag)

        let deletedID = try await database.deleteRecord(withID: record.recordID)
        #expect(deletedID == record.recordID)
        let error = await #expect(throws: CKError.self) { try await database.record(for: record.recordID) }
        #expect(error?.code == .unknownItem)
    }

    @Test func completionHandlerSaveFetchDeleteRoundTrip() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let record = CKRecord(recordType: "Note")
        record["title"] = "callbacks"

        let (saved, saveError) = await withCheckedContinuation { continuation in
            database.save(record) { saved, error in continuation.resume(returning: (saved, error)) }
        }
        #expect(saveError == nil)
        #expect(saved?.recordID == record.recordID)

        let (fetched, fetchError) = await withCheckedContinuation { continuation in
            database.fetch(withRecordID: record.recordID) { record, error in
                continuation.resume(returning: (record, error))
            }
        }
        #expect(fetchError == nil)
        #expect(fetched?["title"] as? String == "callbacks")

        let (deletedID, deleteError) = await withCheckedContinuation { continuation in
            database.delete(withRecordID: record.recordID) { id, error in continuation.resume(returning: (id, error)) }
        }
        #expect(deleteError == nil)
        #expect(deletedID == record.recordID)

        let (missing, missingError) = await withCheckedContinuation { continuation in
            database.fetch(withRecordID: record.recordID) { record, error in
                continuation.resume(returning: (record, error))
            }
        }
        #expect(missing == nil)
        #expect(OpsTestKit.code(missingError) == .unknownItem)
    }

    @Test func deletingAMissingRecordThrowsUnknownItem() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let error = await #expect(throws: CKError.self) {
            try await database.deleteRecord(withID: CKRecord.ID(recordName: "never-saved"))
        }
        #expect(error?.code == .unknownItem)
    }

    @Test func savingIntoAMissingZoneThrowsZoneNotFound() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let record = CKRecord(
            recordType: "Note", recordID: CKRecord.ID(recordName: "a", zoneID: CKRecordZone.ID(zoneName: "Nowhere")))
        let error = await #expect(throws: CKError.self) { try await database.save(record) }
        #expect(error?.code == .zoneNotFound)
    }

    @Test func savingAStaleCopyThrowsServerRecordChangedWithTheServerRecord() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let original = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "shared"))
        original["title"] = "first"
        _ = try await database.save(original)

        // A new object with the same ID has no change tag: CloudKit says the record exists.
        let duplicate = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "shared"))
        duplicate["title"] = "second"
        let error = await #expect(throws: CKError.self) { try await database.save(duplicate) }
        #expect(error?.code == .serverRecordChanged)
        #expect(error?.serverRecord?["title"] as? String == "first")
    }

    @Test func recordsForIDsAnswersEachIDWithItsOwnResult() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Inbox", in: database)
        let present = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "present", zoneID: zoneID))
        present["title"] = "here"
        present["body"] = "text"
        try await OpsTestKit.save([present], in: database)
        let absent = CKRecord.ID(recordName: "absent", zoneID: zoneID)
        let noZone = CKRecord.ID(recordName: "x", zoneID: CKRecordZone.ID(zoneName: "Gone"))

        let results = try await database.records(for: [present.recordID, absent, noZone])
        #expect(results.count == 3)
        #expect(try results[present.recordID]?.get()["title"] as? String == "here")
        #expect(OpsTestKit.code(results[absent]) == .unknownItem)
        #expect(OpsTestKit.code(results[noZone]) == .zoneNotFound)

        let systemOnly = try await database.records(for: [present.recordID], desiredKeys: [])
        let bare = try #require(try systemOnly[present.recordID]?.get())
        #expect(bare.allKeys().isEmpty)
        #expect(bare.recordChangeTag != nil)

        let titleOnly = try await database.records(for: [present.recordID], desiredKeys: ["title"])
        #expect(try titleOnly[present.recordID]?.get().allKeys() == ["title"])
    }

    @Test func fetchWithRecordIDsCompletionHandlerGivesPerItemResults() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let record = CKRecord(recordType: "Note")
        _ = try await database.save(record)
        let missing = CKRecord.ID(recordName: "missing")

        let result = await withCheckedContinuation { continuation in
            database.fetch(withRecordIDs: [record.recordID, missing]) { continuation.resume(returning: $0) }
        }
        let byID = try result.get()
        #expect((try? byID[record.recordID]?.get())?.recordID == record.recordID)
        #expect(OpsTestKit.code(byID[missing]) == .unknownItem)
    }

    @Test func atomicModifyThrowsTheCulpritsErrorAndAppliesNothingInAnAtomicZone() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Atomic", in: database)
        try await OpsTestKit.save(
            [CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "taken", zoneID: zoneID))], in: database)

        let good = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "good", zoneID: zoneID))
        let clash = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "taken", zoneID: zoneID))
        let error = await #expect(throws: CKError.self) {
            try await database.modifyRecords(saving: [good, clash], deleting: [], atomically: true)
        }
        // The culprit's error, not the batchRequestFailed of the innocent record.
        #expect(error?.code == .serverRecordChanged)
        let after = try await database.records(for: [good.recordID])
        #expect(OpsTestKit.code(after[good.recordID]) == .unknownItem)
    }

    @Test func nonAtomicModifyReportsEachItemAndKeepsTheSuccesses() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Loose", in: database)
        let existing = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "taken", zoneID: zoneID))
        try await OpsTestKit.save([existing], in: database)

        let good = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "good", zoneID: zoneID))
        let clash = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "taken", zoneID: zoneID))
        let missing = CKRecord.ID(recordName: "missing", zoneID: zoneID)
        let (saveResults, deleteResults) = try await database.modifyRecords(
            saving: [good, clash], deleting: [missing], savePolicy: .ifServerRecordUnchanged, atomically: false)
        #expect(saveResults.count == 2)
        #expect((try? saveResults[good.recordID]?.get())?.recordChangeTag != nil)
        #expect(OpsTestKit.code(saveResults[clash.recordID]) == .serverRecordChanged)
        #expect(OpsTestKit.code(deleteResults[missing]) == .unknownItem)
        #expect(try await database.record(for: good.recordID).recordID == good.recordID)
    }

    @Test func modifyRecordsCompletionHandlerDeletesAndSaves() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let old = CKRecord(recordType: "Note")
        _ = try await database.save(old)
        let new = CKRecord(recordType: "Note")

        let result = await withCheckedContinuation { continuation in
            database.modifyRecords(saving: [new], deleting: [old.recordID]) { continuation.resume(returning: $0) }
        }
        let (saveResults, deleteResults) = try result.get()
        #expect((try? saveResults[new.recordID]?.get()) != nil)
        #expect((try? deleteResults[old.recordID]?.get()) != nil)
        let after = try await database.records(for: [old.recordID, new.recordID])
        #expect(OpsTestKit.code(after[old.recordID]) == .unknownItem)
        #expect(OpsTestKit.code(after[new.recordID]) == nil)
    }

    @Test func moreThan400IDsFailTheWholeRequestWithLimitExceeded() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let ids = (0..<401).map { CKRecord.ID(recordName: "r\($0)") }
        let error = await #expect(throws: CKError.self) { try await database.records(for: ids) }
        #expect(error?.code == .limitExceeded)
    }

    @Test func cancellingTheAwaitingTaskCancelsTheOperation() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let record = CKRecord(recordType: "Note")
        _ = try await database.save(record)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await database.record(for: record.recordID)
        }
        let error = await #expect(throws: CKError.self) { try await task.value }
        #expect(error?.code == .operationCancelled)
    }

    @Test func conveniencesRunInTheConfiguredWithScope() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let configuration = CKOperation.Configuration()
        configuration.timeoutIntervalForRequest = 5
        let group = CKOperationGroup()
        group.name = "import"
        let record = CKRecord(recordType: "Note")
        let saved = try await database.configuredWith(configuration: configuration, group: group) { database in
            try await database.save(record)
        }
        #expect(saved.recordID == record.recordID)
        let count = database.configuredWith(group: group) { _ in 42 }
        #expect(count == 42)
    }
}
