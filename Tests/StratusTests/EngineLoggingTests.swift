import Dispatch
import Foundation
import Stratus
import StratusBackend
import StratusInMemory
import StratusTestSupport
import Synchronization
import Testing

/// What the engine logs besides operations (`Docs/Logging.md`): write transactions retried on
/// a conflict, read-ahead decisions, long-lived replays.
@Suite struct EngineLoggingTests {
    /// A backend whose first `conflicts` writes fail with `.conflict` before their body runs,
    /// as a serialization failure would, and whose later writes go through.
    static func conflicting(_ conflicts: Int) -> WrappingBackend {
        let remaining = Atomic(conflicts)
        var hooks = BackendHooks()
        hooks.write = { base, body in
            if remaining.wrappingSubtract(1, ordering: .relaxed).oldValue > 0 {
                throw BackendError(.conflict, "test: could not serialize access")
            }
            try base.write(body)
        }
        return WrappingBackend(base: InMemoryBackend(), hooks: hooks)
    }

    /// The container's first write (registering the store) meets two conflicts and commits on
    /// its third attempt.
    @Test func aWriteRetriedOnAConflictIsLogged() async throws {
        let capture = LogCapture()
        let container = CKContainer(identifier: "iCloud.test", backend: Self.conflicting(2), logger: capture.logger)
        _ = try await container.privateCloudDatabase.save(CKRecordZone(zoneName: "Z"))
        let retries = capture.entries(message: "write transaction conflicted; running it again")
        #expect(retries.map(\.level) == [.debug, .debug])
        #expect(retries.map { $0.value(LogKey.attempt) } == ["1", "2"])
        #expect(retries.allSatisfy { $0.value(LogKey.error) == "conflict" })
        let committed = try #require(
            capture.entries(message: "write transaction committed after retrying on conflicts").first)
        #expect(committed.value(LogKey.attempt) == "3")
        #expect(capture.entries(message: "write transaction committed after retrying on conflicts").count == 1)
    }

    @Test func retriesExhaustedIsAnError() async throws {
        let capture = LogCapture()
        let container = CKContainer(identifier: "iCloud.test", backend: Self.conflicting(1_000), logger: capture.logger)
        await #expect(throws: CKError.self) {
            _ = try await container.privateCloudDatabase.save(CKRecordZone(zoneName: "Z"))
        }
        let gaveUp = try #require(
            capture.entries(message: "write transaction conflicted on every attempt; giving up").first)
        #expect(gaveUp.level == .error)
        #expect(gaveUp.value(LogKey.attempt) == "10")
        #expect(gaveUp.value(LogKey.maximumAttempts) == "10")
        #expect(capture.entries(message: "write transaction conflicted; running it again").count == 9)
    }

    @Test func readAheadBatchesUsedAndDiscardedAreLogged() async throws {
        let capture = LogCapture()
        let backend = InMemoryBackend()
        let database = CKContainer(identifier: "iCloud.test", backend: backend, logger: capture.logger)
            .privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        try await OpsTestKit.save(OperationLoggingTests.notes(12, in: zoneID), in: database)

        let quiet = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: .init(resultsLimit: 5)])
        await OpsTestKit.run(quiet, on: database)
        let used = capture.entries(message: "read-ahead batch used").filter {
            $0.value(LogKey.operationID) == quiet.operationID
        }
        #expect(used.count == 2, "batches 2 and 3 of 12 records, 5 a batch")
        #expect(used.allSatisfy { $0.level == .debug && $0.value(LogKey.zone) == "Z" })

        // A write from a callback makes the batch read ahead stale.
        let writing = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: .init(resultsLimit: 5)])
        let wrote = Atomic(false)
        writing.recordZoneChangeTokensUpdatedBlock = { _, _, _ in
            guard !wrote.exchange(true, ordering: .relaxed) else { return }
            let done = DispatchSemaphore(value: 0)
            let save = CKModifyRecordsOperation(
                recordsToSave: [CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "new", zoneID: zoneID))])
            save.modifyRecordsResultBlock = { _ in done.signal() }
            database.add(save)
            done.wait()
        }
        await OpsTestKit.run(writing, on: database)
        let discarded = capture.entries(message: "read-ahead batch discarded").filter {
            $0.value(LogKey.operationID) == writing.operationID
        }
        #expect(discarded.map { $0.value(LogKey.reason) } == ["write"])
    }

    @Test func aReplayedLongLivedOperationIsLoggedAtInfo() async throws {
        let store = InMemoryStore()
        let id = LongLivedOperationTests.persistThenKill(saving: ["a"], in: store)
        let capture = LogCapture()
        let container = CKContainer(
            identifier: "iCloud.test.longLived", backend: InMemoryBackend(store: store), logger: capture.logger)
        let proxy = try #require(try await container.longLivedOperation(for: id) as? CKDatabaseOperation)
        await OpsTestKit.run(proxy, on: container.privateCloudDatabase)

        let resuming = try #require(capture.entries(message: "long-lived operation resuming from its journal").first)
        #expect(resuming.level == .info)
        #expect(resuming.value(LogKey.operationID) == id)
        #expect(resuming.value(LogKey.operationKind) == "CKModifyRecordsOperation")
        #expect(resuming.value(LogKey.longLived) == "true")
        // The run was killed before its work reached the store: nothing to replay, work to do.
        let replayed = try #require(capture.entries(message: "long-lived operation replayed; resuming its work").first)
        #expect(replayed.level == .info)
        #expect(replayed.value(LogKey.count) == "0")
        let messages = capture.entries.map(\.message.description)
        let resumingAt = try #require(messages.firstIndex(of: "long-lived operation resuming from its journal"))
        let finishedAt = try #require(messages.firstIndex(of: "operation finished"))
        #expect(resumingAt < finishedAt)
    }
}
