import Foundation
import Stratus
import Testing

/// `CKFetchRecordsOperation`: both callback generations, errors, cancellation, queues.
@Suite struct FetchRecordsOperationTests {
    /// A private database with a zone "Inbox" holding record "present" (title "here").
    private func fixture() async throws -> (database: CKDatabase, present: CKRecord.ID, zoneID: CKRecordZone.ID) {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Inbox", in: database)
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "present", zoneID: zoneID))
        record["title"] = "here"
        record["body"] = "long text"
        try await OpsTestKit.save([record], in: database)
        return (database, record.recordID, zoneID)
    }

    @Test func resultBlocksReportEveryIDInOrderWithZoneNotFoundBeforeUnknownItem() async throws {
        let (database, present, zoneID) = try await fixture()
        let absent = CKRecord.ID(recordName: "absent", zoneID: zoneID)
        let noZone = CKRecord.ID(recordName: "absent", zoneID: CKRecordZone.ID(zoneName: "Gone"))
        let operation = CKFetchRecordsOperation(recordIDs: [noZone, present, absent])
        let events = OpsLog<String>()
        let results = OpsLog<(CKRecord.ID, Result<CKRecord, any Error>)>()
        operation.perRecordProgressBlock = { id, progress in events.append("progress \(id.recordName) \(progress)") }
        operation.perRecordResultBlock = { id, result in
            events.append("result \(id.recordName)")
            results.append((id, result))
        }
        operation.fetchRecordsResultBlock = { result in
            events.append("final \((try? result.get()) != nil)")
        }
        operation.perRecordCompletionBlock = { _, _, _ in events.append("deprecated per-record") }
        await OpsTestKit.run(operation, on: database)

        #expect(
            events.all == [
                "progress absent 1.0", "result absent", "progress present 1.0", "result present",
                "progress absent 1.0", "result absent", "final true",
            ])
        let all = results.all
        #expect(all.map(\.0) == [noZone, present, absent])
        #expect(OpsTestKit.code(all[0].1) == .zoneNotFound)
        #expect((try? all[1].1.get())?["title"] as? String == "here")
        #expect(OpsTestKit.code(all[2].1) == .unknownItem)
        if case .failure(let error) = all[2].1 {
            #expect(error.localizedDescription.contains("Record 'absent' does not exist"))
        }
    }

    @Test func partialFailureGoesOnlyToTheDeprecatedCompletionBlock() async throws {
        let (database, present, zoneID) = try await fixture()
        let absent = CKRecord.ID(recordName: "absent", zoneID: zoneID)
        let operation = CKFetchRecordsOperation(recordIDs: [present, absent])
        let perRecord = OpsLog<(CKRecord?, CKRecord.ID?, (any Error)?)>()
        let final = OpsLog<Result<Void, any Error>>()
        let completion = OpsLog<([CKRecord.ID: CKRecord]?, (any Error)?)>()
        operation.perRecordCompletionBlock = { record, id, error in perRecord.append((record, id, error)) }
        operation.fetchRecordsResultBlock = { final.append($0) }
        operation.fetchRecordsCompletionBlock = { records, error in completion.append((records, error)) }
        await OpsTestKit.run(operation, on: database)

        // Without perRecordResultBlock, the deprecated per-record block reports each record.
        #expect(perRecord.all.count == 2)
        #expect(perRecord.all[0].0?.recordID == present && perRecord.all[0].2 == nil)
        #expect(perRecord.all[1].0 == nil && perRecord.all[1].1 == absent)
        #expect(OpsTestKit.code(perRecord.all[1].2) == .unknownItem)

        // The Result block never sees partialFailure.
        #expect(final.all.count == 1)
        #expect((try? final.all[0].get()) != nil)

        let (records, error) = try #require(completion.all.first)
        // The fetched records are still delivered next to the partial failure.
        #expect(records?.count == 1)
        #expect(records?[present]?.recordID == present)
        let partial = try #require(error as? CKError)
        #expect(partial.code == .partialFailure)
        let byItem = try #require(partial.userInfo[CKPartialErrorsByItemIDKey] as? [AnyHashable: CKError])
        #expect(byItem.count == 1)
        #expect(byItem[absent]?.code == .unknownItem)
        #expect((partial.partialErrorsByItemID?[absent] as? CKError)?.code == .unknownItem)
    }

    @Test func noPartialFailureWhenEveryRecordIsFetched() async throws {
        let (database, present, _) = try await fixture()
        let operation = CKFetchRecordsOperation(recordIDs: [present])
        let completion = OpsLog<([CKRecord.ID: CKRecord]?, (any Error)?)>()
        operation.fetchRecordsCompletionBlock = { records, error in completion.append((records, error)) }
        await OpsTestKit.run(operation, on: database)
        let (records, error) = try #require(completion.all.first)
        #expect(error == nil)
        #expect(records?[present]?["title"] as? String == "here")
    }

    @Test func duplicateIDsAreAnsweredOnce() async throws {
        let (database, present, _) = try await fixture()
        let operation = CKFetchRecordsOperation(recordIDs: [present, present, present])
        let ids = OpsLog<CKRecord.ID>()
        operation.perRecordResultBlock = { id, _ in ids.append(id) }
        await OpsTestKit.run(operation, on: database)
        #expect(ids.all == [present])
    }

    @Test func desiredKeysLimitTheFields() async throws {
        let (database, present, _) = try await fixture()
        let operation = CKFetchRecordsOperation(recordIDs: [present])
        operation.desiredKeys = ["title"]
        let fetched = OpsLog<CKRecord>()
        operation.perRecordResultBlock = { _, result in if let record = try? result.get() { fetched.append(record) } }
        await OpsTestKit.run(operation, on: database)
        let record = try #require(fetched.all.first)
        #expect(record.allKeys() == ["title"])
        #expect(record["body"] == nil)
    }

    @Test func moreThan400IDsFailTheRequestInBothGenerations() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let operation = CKFetchRecordsOperation(recordIDs: (0..<401).map { CKRecord.ID(recordName: "r\($0)") })
        let perRecord = OpsLog<CKRecord.ID>()
        let final = OpsLog<Result<Void, any Error>>()
        let completion = OpsLog<([CKRecord.ID: CKRecord]?, (any Error)?)>()
        operation.perRecordResultBlock = { id, _ in perRecord.append(id) }
        operation.fetchRecordsResultBlock = { final.append($0) }
        operation.fetchRecordsCompletionBlock = { records, error in completion.append((records, error)) }
        await OpsTestKit.run(operation, on: database)
        #expect(perRecord.all.isEmpty)
        #expect(OpsTestKit.code(final.all.first) == .limitExceeded)
        #expect(completion.all.first?.0 == nil)
        #expect(OpsTestKit.code(completion.all.first?.1) == .limitExceeded)
    }

    @Test func cancellationBeforeStartGivesOperationCancelledToTheResultBlocks() async throws {
        let (database, present, _) = try await fixture()
        let operation = CKFetchRecordsOperation(recordIDs: [present])
        let perRecord = OpsLog<CKRecord.ID>()
        let final = OpsLog<Result<Void, any Error>>()
        let completion = OpsLog<([CKRecord.ID: CKRecord]?, (any Error)?)>()
        operation.perRecordResultBlock = { id, _ in perRecord.append(id) }
        operation.fetchRecordsResultBlock = { final.append($0) }
        operation.fetchRecordsCompletionBlock = { records, error in completion.append((records, error)) }
        operation.cancel()
        await OpsTestKit.run(operation, on: database)
        #expect(perRecord.all.isEmpty)
        #expect(final.all.count == 1)
        #expect(OpsTestKit.code(final.all.first) == .operationCancelled)
        #expect(OpsTestKit.code(completion.all.first?.1) == .operationCancelled)
    }

    @Test func runsOnAPlainOperationQueueAfterItsDependency() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let record = CKRecord(recordType: "Note")
        record["title"] = "queued"
        let save = CKModifyRecordsOperation(recordsToSave: [record])
        save.database = database
        let fetch = CKFetchRecordsOperation(recordIDs: [record.recordID])
        fetch.database = database
        fetch.addDependency(save)
        let events = OpsLog<String>()
        save.modifyRecordsResultBlock = { _ in events.append("saved") }
        fetch.perRecordResultBlock = { _, result in
            events.append("fetched \((try? result.get())?["title"] as? String ?? "nothing")")
        }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        // Foundation runs completion blocks asynchronously, in no guaranteed order between two
        // operations: wait for both.
        let finished = DispatchGroup()
        finished.enter()
        finished.enter()
        save.completionBlock = {
            events.append("save completionBlock")
            finished.leave()
        }
        fetch.completionBlock = {
            events.append("fetch completionBlock")
            finished.leave()
        }
        // Added in reverse order: the dependency, not the order, decides.
        queue.addOperation(fetch)
        queue.addOperation(save)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            finished.notify(queue: .global()) { continuation.resume() }
        }
        let all = events.all
        #expect(all.contains("save completionBlock") && all.contains("fetch completionBlock"))
        #expect(all.firstIndex(of: "saved")! < all.firstIndex(of: "fetched queued")!)
        #expect(save.isFinished && fetch.isFinished)
    }

    @Test func anOperationWithoutADatabaseUsesTheConfiguredContainersPrivateDatabase() async throws {
        let container = OpsTestKit.makeContainer()
        let record = CKRecord(recordType: "Note")
        _ = try await container.privateCloudDatabase.save(record)
        let operation = CKFetchRecordsOperation(recordIDs: [record.recordID])
        let found = OpsLog<Bool>()
        operation.perRecordResultBlock = { _, result in found.append((try? result.get()) != nil) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            operation.completionBlock = { continuation.resume() }
            container.add(operation)
        }
        #expect(found.all == [true])
    }

    @Test func fetchCurrentUserRecordOperationAnswersUnknownItem() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let operation = CKFetchRecordsOperation.fetchCurrentUserRecordOperation()
        #expect(operation.recordIDs == [CKRecord.ID(recordName: CKCurrentUserDefaultName)])
        let results = OpsLog<Result<CKRecord, any Error>>()
        operation.perRecordResultBlock = { _, result in results.append(result) }
        await OpsTestKit.run(operation, on: database)
        #expect(results.all.count == 1)
        #expect(OpsTestKit.code(results.all.first) == .unknownItem)
    }
}
