import Foundation
import Stratus
import Synchronization
import Testing

/// Operations under stress: cancellation from inside a callback, a zone deleted mid-walk,
/// dependencies with plain `Operation`s, priorities, serial callbacks, both callback
/// generations on one operation.
@Suite struct AdversarialOperationTests {
    /// A private database with zone "Z" holding `count` records "r00"…, saved in one request.
    static func zone(
        _ name: String = "Z", records count: Int, in database: CKDatabase
    ) async throws -> CKRecordZone.ID {
        let zoneID = try await OpsTestKit.makeZone(name, in: database)
        try await OpsTestKit.save(
            (0..<count).map { i in
                let record = CKRecord(
                    recordType: "Note", recordID: CKRecord.ID(recordName: String(format: "r%02d", i), zoneID: zoneID))
                record["index"] = i
                return record
            }, in: database)
        return zoneID
    }

    // MARK: Cancellation

    /// Cancelling from inside `recordWasChangedBlock` of a fetch that needs several batches ends
    /// the operation with `operationCancelled`, and nothing is delivered after the cancel: no
    /// further record, no token, no per-zone success.
    @Test(arguments: [5, 100])
    func cancellingFromAPerRecordBlockDeliversNothingAfterwards(resultsLimit: Int) async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await Self.zone(records: 30, in: database)
        let operation = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID],
            configurationsByRecordZoneID: [zoneID: .init(previousServerChangeToken: nil, resultsLimit: resultsLimit)])
        let events = OpsLog<String>()
        let cancelled = Atomic<Bool>(false)
        operation.recordWasChangedBlock = { [unowned operation] id, _ in
            events.append(
                (cancelled.load(ordering: .sequentiallyConsistent) ? "after cancel: " : "") + "record \(id.recordName)")
            if id.recordName == "r02" {
                cancelled.store(true, ordering: .sequentiallyConsistent)
                operation.cancel()
            }
        }
        operation.recordZoneChangeTokensUpdatedBlock = { _, _, _ in
            events.append((cancelled.load(ordering: .sequentiallyConsistent) ? "after cancel: " : "") + "token")
        }
        operation.recordZoneFetchResultBlock = { _, result in
            let outcome =
                (try? result.get()) != nil ? "success" : "failure \(String(describing: OpsTestKit.code(result)))"
            events.append(
                (cancelled.load(ordering: .sequentiallyConsistent) ? "after cancel: " : "") + "zone \(outcome)")
        }
        let final = OpsLog<Result<Void, any Error>>()
        let deprecated = OpsLog<(any Error)?>()
        operation.fetchRecordZoneChangesResultBlock = { final.append($0) }
        operation.fetchRecordZoneChangesCompletionBlock = { deprecated.append($0) }
        await OpsTestKit.run(operation, on: database)

        let afterCancel = events.all.filter { $0.hasPrefix("after cancel") && !$0.contains("zone failure") }
        #expect(afterCancel.isEmpty, "delivered after cancel: \(afterCancel)")
        #expect(events.all.prefix(3) == ["record r00", "record r01", "record r02"])
        #expect(final.all.count == 1)
        #expect(OpsTestKit.code(final.all.first) == .operationCancelled)
        #expect(deprecated.all.count == 1)
        #expect(OpsTestKit.code(deprecated.all.first ?? nil) == .operationCancelled)
    }

    /// Cancelling a database-changes fetch from its per-zone block, with several batches to go.
    @Test func cancellingADatabaseChangesFetchFromAPerZoneBlockEndsWithOperationCancelled() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        for i in 0..<6 { _ = try await OpsTestKit.makeZone("Z\(i)", in: database) }
        let operation = CKFetchDatabaseChangesOperation(previousServerChangeToken: nil)
        operation.resultsLimit = 2
        let changed = OpsLog<CKRecordZone.ID>()
        let tokens = OpsLog<CKServerChangeToken>()
        operation.recordZoneWithIDChangedBlock = { [unowned operation] id in
            changed.append(id)
            operation.cancel()
        }
        operation.changeTokenUpdatedBlock = { tokens.append($0) }
        let final = OpsLog<Result<(serverChangeToken: CKServerChangeToken, moreComing: Bool), any Error>>()
        operation.fetchDatabaseChangesResultBlock = { final.append($0) }
        await OpsTestKit.run(operation, on: database)
        #expect(final.all.count == 1)
        #expect(OpsTestKit.code(final.all.first) == .operationCancelled)
        #expect(changed.all.count == 1)
        #expect(tokens.all.isEmpty)
    }

    /// Cancelling a records fetch or a query from its per-record block stops delivery there.
    @Test func cancellingARecordsFetchOrAQueryFromAPerRecordBlockStopsThere() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await Self.zone(records: 10, in: database)

        let fetch = CKFetchRecordsOperation(
            recordIDs: (0..<10).map { CKRecord.ID(recordName: String(format: "r%02d", $0), zoneID: zoneID) })
        let fetched = OpsLog<CKRecord.ID>()
        let fetchFinal = OpsLog<Result<Void, any Error>>()
        let fetchCompletion = OpsLog<([CKRecord.ID: CKRecord]?, (any Error)?)>()
        fetch.perRecordResultBlock = { [unowned fetch] id, _ in
            fetched.append(id)
            fetch.cancel()
        }
        fetch.fetchRecordsResultBlock = { fetchFinal.append($0) }
        fetch.fetchRecordsCompletionBlock = { records, error in fetchCompletion.append((records, error)) }
        await OpsTestKit.run(fetch, on: database)
        #expect(fetched.all.count == 1)
        #expect(fetchFinal.all.count == 1 && OpsTestKit.code(fetchFinal.all.first) == .operationCancelled)
        #expect(OpsTestKit.code(fetchCompletion.all.first?.1) == .operationCancelled)

        let query = CKQueryOperation(query: CKQuery(recordType: "Note", predicate: NSPredicate(value: true)))
        query.zoneID = zoneID
        let matched = OpsLog<CKRecord.ID>()
        let queryFinal = OpsLog<Result<CKQueryOperation.Cursor?, any Error>>()
        query.recordMatchedBlock = { [unowned query] id, _ in
            matched.append(id)
            query.cancel()
        }
        query.queryResultBlock = { queryFinal.append($0) }
        await OpsTestKit.run(query, on: database)
        #expect(matched.all.count == 1)
        #expect(queryFinal.all.count == 1 && OpsTestKit.code(queryFinal.all.first) == .operationCancelled)
    }

    // MARK: A zone deleted during a fetch

    /// The zone is deleted while its first batch is being delivered: the next batch fails the
    /// zone with `zoneNotFound`, other zones of the operation are still fetched, the final
    /// Result block succeeds and the deprecated one reports `partialFailure` keyed by zone.
    @Test func aZoneDeletedWhileAFetchWalksItFailsThatZoneOnly() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let doomed = try await Self.zone("Doomed", records: 20, in: database)
        let kept = try await Self.zone("Kept", records: 3, in: database)
        let operation = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [doomed, kept],
            configurationsByRecordZoneID: [doomed: .init(resultsLimit: 5), kept: .init(resultsLimit: 5)])
        let records = OpsLog<CKRecord.ID>()
        let deletedOnce = Atomic<Bool>(false)
        operation.recordWasChangedBlock = { id, _ in
            records.append(id)
            if id.zoneID == doomed,
                deletedOnce.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
            {
                let done = DispatchSemaphore(value: 0)
                database.delete(withRecordZoneID: doomed) { _, _ in done.signal() }
                done.wait()
            }
        }
        let zoneResults = OpsLog<
            (
                CKRecordZone.ID,
                Result<
                    (serverChangeToken: CKServerChangeToken, clientChangeTokenData: Data?, moreComing: Bool), any Error
                >
            )
        >()
        operation.recordZoneFetchResultBlock = { id, result in zoneResults.append((id, result)) }
        let final = OpsLog<Result<Void, any Error>>()
        let deprecated = OpsLog<(any Error)?>()
        operation.fetchRecordZoneChangesResultBlock = { final.append($0) }
        operation.fetchRecordZoneChangesCompletionBlock = { deprecated.append($0) }
        await OpsTestKit.run(operation, on: database)

        #expect(zoneResults.all.map(\.0) == [doomed, kept])
        #expect(OpsTestKit.code(zoneResults.all.first?.1) == .zoneNotFound)
        #expect(OpsTestKit.code(zoneResults.all.last?.1) == nil)
        #expect(records.all.filter { $0.zoneID == doomed }.count == 5)
        #expect(records.all.filter { $0.zoneID == kept }.count == 3)
        #expect(final.all.count == 1 && OpsTestKit.code(final.all.first) == nil)
        let partial = try #require(deprecated.all.first ?? nil) as? CKError
        #expect(partial?.code == .partialFailure)
        let byZone = partial?.partialErrorsByItemID
        #expect(byZone?.count == 1)
        #expect(OpsTestKit.code(byZone?[AnyHashable(doomed)]) == .zoneNotFound)
    }

    /// A zone listed twice in `recordZoneIDs` is fetched once: each record and the zone's
    /// result arrive once, as CloudKit's per-zone results (keyed by zone ID) imply.
    @Test func aZoneListedTwiceIsFetchedOnce() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let first = try await Self.zone("First", records: 4, in: database)
        let second = try await Self.zone("Second", records: 2, in: database)
        let operation = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [first, second, first],
            configurationsByRecordZoneID: [first: .init(resultsLimit: 3)])
        let records = OpsLog<CKRecord.ID>()
        let zoneResults = OpsLog<CKRecordZone.ID>()
        operation.recordWasChangedBlock = { id, _ in records.append(id) }
        operation.recordZoneFetchResultBlock = { id, _ in zoneResults.append(id) }
        await OpsTestKit.run(operation, on: database)

        #expect(zoneResults.all == [first, second])
        #expect(records.all.count == 6)
        #expect(Set(records.all).count == 6)
    }

    // MARK: Queues, dependencies, priorities

    /// CloudKit operations and a plain `BlockOperation` on one concurrent queue run in the order
    /// their dependencies impose, and each sees the previous one's effects.
    @Test func dependenciesBetweenCKAndBlockOperationsRunInOrder() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        let recordID = CKRecord.ID(recordName: "r", zoneID: zoneID)
        let events = OpsLog<String>()

        let record = CKRecord(recordType: "Note", recordID: recordID)
        record["step"] = "saved"
        let save = CKModifyRecordsOperation(recordsToSave: [record])
        save.database = database
        save.modifyRecordsResultBlock = { result in events.append("save \((try? result.get()) != nil)") }

        let middle = BlockOperation {
            usleep(20_000)
            events.append("block")
        }
        let fetch = CKFetchRecordsOperation(recordIDs: [recordID])
        fetch.database = database
        fetch.perRecordResultBlock = { _, result in
            events.append("fetched \(String(describing: (try? result.get())?["step"] as? String))")
        }
        let deleteOp = CKModifyRecordsOperation(recordsToSave: nil, recordIDsToDelete: [recordID])
        deleteOp.database = database
        deleteOp.perRecordDeleteBlock = { _, result in events.append("deleted \((try? result.get()) != nil)") }

        middle.addDependency(save)
        fetch.addDependency(middle)
        deleteOp.addDependency(fetch)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            deleteOp.completionBlock = { continuation.resume() }
            // Added in reverse so that only the dependencies can order them.
            queue.addOperations([deleteOp, fetch, middle, save], waitUntilFinished: false)
        }
        #expect(events.all == ["save true", "block", "fetched Optional(\"saved\")", "deleted true"])
    }

    /// Quality of service and queue priority are ordinary `Operation` properties on CloudKit
    /// operations; a suspended serial queue starts the higher-priority operation first.
    @Test func qualityOfServiceAndPriorityAreHonoured() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        let low = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "low", zoneID: zoneID)])
        let high = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "high", zoneID: zoneID)])
        low.queuePriority = .veryLow
        high.queuePriority = .veryHigh
        high.qualityOfService = .userInitiated
        high.configuration.qualityOfService = .userInitiated
        #expect(low.queuePriority == .veryLow)
        #expect(high.queuePriority == .veryHigh)
        #expect(high.qualityOfService == .userInitiated)
        #expect(high.configuration.qualityOfService == .userInitiated)

        let order = OpsLog<String>()
        for (name, operation) in [("low", low), ("high", high)] {
            operation.database = database
            operation.fetchRecordsResultBlock = { _ in order.append(name) }
        }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.isSuspended = true
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = BlockOperation { continuation.resume() }
            done.addDependency(low)
            done.addDependency(high)
            queue.addOperations([low, high], waitUntilFinished: false)
            OperationQueue().addOperation(done)
            queue.isSuspended = false
        }
        #expect(order.all == ["high", "low"])

        // A group's default configuration applies where the operation set nothing.
        let group = CKOperationGroup()
        group.defaultConfiguration.qualityOfService = .utility
        let grouped = CKFetchRecordsOperation(recordIDs: [])
        grouped.group = group
        let finished = OpsLog<Bool>()
        grouped.fetchRecordsResultBlock = { finished.append((try? $0.get()) != nil) }
        await OpsTestKit.run(grouped, on: database)
        #expect(finished.all == [true])
    }

    // MARK: Serial callbacks

    /// No two callbacks of one operation ever overlap, across zones, batches and kinds of
    /// callback, and the final callback is the last one.
    @Test func everyCallbackOfOneOperationRunsSerially() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        var zones: [CKRecordZone.ID] = []
        for name in ["A", "B", "C"] { zones.append(try await Self.zone(name, records: 12, in: database)) }
        // Some deletions so that the deletion block runs too.
        let token = try await database.recordZoneChanges(inZoneWith: zones[0], since: nil).changeToken
        _ = try await database.modifyRecords(
            saving: [],
            deleting: [
                CKRecord.ID(recordName: "r00", zoneID: zones[0]), CKRecord.ID(recordName: "r01", zoneID: zones[0]),
            ])

        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let calls = Atomic<Int>(0)
        let names = OpsLog<String>()
        @Sendable func enter(_ name: String) {
            if inside.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue > 1 {
                overlaps.wrappingAdd(1, ordering: .sequentiallyConsistent)
            }
            calls.wrappingAdd(1, ordering: .sequentiallyConsistent)
            names.append(name)
            usleep(300)
            inside.wrappingSubtract(1, ordering: .sequentiallyConsistent)
        }
        var configurations: [CKRecordZone.ID: CKFetchRecordZoneChangesOperation.ZoneConfiguration] = [:]
        for zone in zones { configurations[zone] = .init(resultsLimit: 4) }
        configurations[zones[0]] = .init(previousServerChangeToken: token, resultsLimit: 1)
        let operation = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: zones, configurationsByRecordZoneID: configurations)
        operation.recordWasChangedBlock = { _, _ in enter("changed") }
        operation.recordWithIDWasDeletedBlock = { _, _ in enter("deleted") }
        operation.recordZoneChangeTokensUpdatedBlock = { _, _, _ in enter("token") }
        operation.recordZoneFetchResultBlock = { _, _ in enter("zone") }
        operation.recordZoneFetchCompletionBlock = { _, _, _, _, _ in enter("zone (deprecated)") }
        operation.fetchRecordZoneChangesResultBlock = { _ in enter("final") }
        operation.fetchRecordZoneChangesCompletionBlock = { _ in enter("final (deprecated)") }
        await OpsTestKit.run(operation, on: database)

        #expect(overlaps.load(ordering: .sequentiallyConsistent) == 0)
        #expect(names.all.filter { $0 == "changed" }.count == 24)
        #expect(names.all.filter { $0 == "deleted" }.count == 2)
        #expect(names.all.filter { $0 == "zone" }.count == 3)
        #expect(names.all.suffix(2) == ["final", "final (deprecated)"])
        #expect(calls.load(ordering: .sequentiallyConsistent) == names.all.count)
    }

    // MARK: Both callback generations

    /// With both generations set on a modify: the deprecated per-record block is ignored, the
    /// Result blocks never see `partialFailure`, the deprecated completion gets it with the
    /// per-item errors, next to the saved records and deleted IDs.
    @Test func modifyWithBothCallbackGenerationsFollowsTheRules() async throws {
        let (database, zoneID, keep) = try await AdversarialKit.fixture()
        let good = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "good", zoneID: zoneID))
        good["title"] = "fine"
        let bad = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: zoneID))
        bad["count"] = "not a number"
        let missing = CKRecord.ID(recordName: "missing", zoneID: zoneID)
        let operation = CKModifyRecordsOperation(
            recordsToSave: [good, bad], recordIDsToDelete: [keep.recordID, missing])
        operation.isAtomic = false
        let perRecord = OpsLog<(CKRecord.ID, Result<CKRecord, any Error>)>()
        let perDelete = OpsLog<(CKRecord.ID, Result<Void, any Error>)>()
        let deprecatedPerRecord = OpsLog<CKRecord>()
        let final = OpsLog<Result<Void, any Error>>()
        let completion = OpsLog<([CKRecord]?, [CKRecord.ID]?, (any Error)?)>()
        operation.perRecordSaveBlock = { id, result in perRecord.append((id, result)) }
        operation.perRecordDeleteBlock = { id, result in perDelete.append((id, result)) }
        operation.perRecordCompletionBlock = { record, _ in deprecatedPerRecord.append(record) }
        operation.modifyRecordsResultBlock = { final.append($0) }
        operation.modifyRecordsCompletionBlock = { saved, deleted, error in completion.append((saved, deleted, error)) }
        await OpsTestKit.run(operation, on: database)

        #expect(deprecatedPerRecord.all.isEmpty)
        #expect(perRecord.all.count == 2 && perDelete.all.count == 2)
        #expect(final.all.count == 1 && OpsTestKit.code(final.all.first) == nil)
        let (saved, deleted, error) = try #require(completion.all.first)
        #expect(saved?.map(\.recordID) == [good.recordID])
        #expect(deleted == [keep.recordID])
        let partial = try #require(error as? CKError)
        #expect(partial.code == .partialFailure)
        let items = try #require(partial.partialErrorsByItemID)
        #expect(items.count == 2)
        #expect(OpsTestKit.code(items[AnyHashable(bad.recordID)]) == .invalidArguments)
        #expect(OpsTestKit.code(items[AnyHashable(missing)]) == .unknownItem)
    }

    /// With both generations set on a zone-changes fetch and a query, the deprecated per-record
    /// blocks are ignored; only the deprecated final block sees `partialFailure`.
    @Test func fetchesAndQueriesWithBothCallbackGenerationsFollowTheRules() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await Self.zone(records: 3, in: database)
        let missing = CKRecordZone.ID(zoneName: "Missing")

        let fetch = CKFetchRecordZoneChangesOperation(recordZoneIDs: [zoneID, missing])
        let changed = OpsLog<CKRecord.ID>()
        let deprecatedChanged = OpsLog<CKRecord>()
        let zoneResults = OpsLog<CKError.Code?>()
        let deprecatedZone = OpsLog<CKError.Code?>()
        let final = OpsLog<Result<Void, any Error>>()
        let deprecatedFinal = OpsLog<(any Error)?>()
        fetch.recordWasChangedBlock = { id, _ in changed.append(id) }
        fetch.recordChangedBlock = { deprecatedChanged.append($0) }
        fetch.recordZoneFetchResultBlock = { _, result in zoneResults.append(OpsTestKit.code(result)) }
        fetch.recordZoneFetchCompletionBlock = { _, _, _, _, error in deprecatedZone.append(OpsTestKit.code(error)) }
        fetch.fetchRecordZoneChangesResultBlock = { final.append($0) }
        fetch.fetchRecordZoneChangesCompletionBlock = { deprecatedFinal.append($0) }
        await OpsTestKit.run(fetch, on: database)
        #expect(changed.all.count == 3 && deprecatedChanged.all.isEmpty)
        #expect(zoneResults.all == [nil, .zoneNotFound])
        #expect(deprecatedZone.all == [nil, .zoneNotFound])
        #expect(final.all.count == 1 && OpsTestKit.code(final.all.first) == nil)
        #expect(OpsTestKit.code(deprecatedFinal.all.first ?? nil) == .partialFailure)

        let query = CKQueryOperation(query: CKQuery(recordType: "Note", predicate: NSPredicate(value: true)))
        query.zoneID = zoneID
        query.resultsLimit = 2
        let matched = OpsLog<CKRecord.ID>()
        let fetched = OpsLog<CKRecord>()
        let results = OpsLog<Result<CKQueryOperation.Cursor?, any Error>>()
        let completions = OpsLog<(CKQueryOperation.Cursor?, (any Error)?)>()
        query.recordMatchedBlock = { id, _ in matched.append(id) }
        query.recordFetchedBlock = { fetched.append($0) }
        query.queryResultBlock = { results.append($0) }
        query.queryCompletionBlock = { cursor, error in completions.append((cursor, error)) }
        await OpsTestKit.run(query, on: database)
        #expect(matched.all.count == 2 && fetched.all.isEmpty)
        let cursor = try #require(try results.all.first?.get())
        #expect(completions.all.count == 1)
        #expect(completions.all.first?.0 === cursor || completions.all.first?.0?.description == cursor.description)
        #expect(completions.all.first?.1 == nil)
    }
}
