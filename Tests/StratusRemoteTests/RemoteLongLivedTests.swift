import Foundation
import Stratus
import StratusTestSupport
import Synchronization
import Testing

/// Long-lived operations of a remote container (decision 0016.6): persisted and run by the
/// server, their callbacks read back from its journal.
@Suite("Remote containers: long-lived operations")
struct RemoteLongLivedTests {
    let fixture: RemoteFixture

    init() async throws {
        fixture = try await offPool { try RemoteFixture() }
    }

    /// A long-lived modify whose per-record callbacks are recorded; `gate`, when given, holds
    /// the first callback until it is signalled.
    static func modify(_ records: [CKRecord], log: Lines, gate: DispatchSemaphore? = nil)
        -> CKModifyRecordsOperation
    {
        let operation = CKModifyRecordsOperation(recordsToSave: records, recordIDsToDelete: [])
        operation.configuration.isLongLived = true
        operation.longLivedOperationWasPersistedBlock = { log.append("persisted") }
        operation.perRecordSaveBlock = { id, result in
            gate?.wait()
            log.append("saved \(id.recordName) \((try? result.get()) != nil)")
        }
        operation.modifyRecordsResultBlock = { result in
            log.append("done \((try? result.get()) != nil)")
        }
        return operation
    }

    static func notes(_ count: Int) -> [CKRecord] {
        (0..<count).map { index in
            let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "ll-\(index)"))
            record["n"] = Int64(index)
            return record
        }
    }

    @Test func aLongLivedModifyIsPersistedThenDeliversEveryCallbackOnce() async throws {
        let container = fixture.alice()
        let log = Lines()
        let operation = Self.modify(Self.notes(3), log: log)
        let done = DispatchSemaphore(value: 0)
        operation.completionBlock = { done.signal() }
        container.privateCloudDatabase.add(operation)
        await offPool { done.wait() }
        #expect(
            log.all == ["persisted", "saved ll-0 true", "saved ll-1 true", "saved ll-2 true", "done true"])
        let stored = try await fixture.alice().privateCloudDatabase.record(for: CKRecord.ID(recordName: "ll-2"))
        #expect(stored["n"] as? Int64 == 2)
        #expect(try await fixture.alice().allLongLivedOperationIDs().isEmpty, "delivered operations leave the list")
    }

    @Test func anotherProcessListsFetchesAndReplaysAnOutstandingOperation() async throws {
        let started = Date()
        let first = fixture.alice()
        let log = Lines()
        let gate = DispatchSemaphore(value: 0)
        let operation = Self.modify(Self.notes(2), log: log, gate: gate)
        let done = DispatchSemaphore(value: 0)
        operation.completionBlock = { done.signal() }
        first.privateCloudDatabase.add(operation)

        // The first "process" is stuck in its first callback; the server finished the work.
        let second = fixture.alice()
        var listed: [CKOperation.ID] = []
        for _ in 0..<100 where listed.isEmpty {
            listed = try await second.allLongLivedOperationIDs()
            if listed.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(listed == [operation.operationID])
        #expect(try await fixture.bob().allLongLivedOperationIDs().isEmpty, "another user never sees it")
        #expect(try await fixture.bob().longLivedOperation(for: operation.operationID) == nil)

        // Its status, from the server's journal: finished there, its callbacks all journaled.
        var status = try await second.longLivedOperationStatus(for: operation.operationID)
        for _ in 0..<100 where status?.state != .completed {
            try await Task.sleep(for: .milliseconds(50))
            status = try await second.longLivedOperationStatus(for: operation.operationID)
        }
        let completed = try #require(status)
        #expect(completed.state == .completed)
        #expect(completed.operationType == "CKModifyRecordsOperation")
        #expect(completed.databaseScope == .private)
        #expect(completed.journaledCallbacks == 3, "two saves and the result")
        #expect(completed.persistedAt >= started.addingTimeInterval(-5) && completed.persistedAt <= Date())
        #expect(try #require(completed.finishedAt) >= completed.persistedAt)
        #expect(try await fixture.bob().longLivedOperationStatus(for: operation.operationID) == nil)
        #expect(try await second.longLivedOperationStatus(for: "no-such-operation") == nil)

        let fetched = try await second.longLivedOperation(for: operation.operationID)
        let proxy = try #require(fetched as? CKModifyRecordsOperation)
        #expect((proxy.recordsToSave ?? []).map { $0.recordID.recordName } == ["ll-0", "ll-1"])
        let replayed = Lines()
        proxy.perRecordSaveBlock = { id, result in
            replayed.append("saved \(id.recordName) \((try? result.get()) != nil)")
        }
        proxy.modifyRecordsResultBlock = { result in
            replayed.append("done \((try? result.get()) != nil)")
        }
        let proxyDone = DispatchSemaphore(value: 0)
        proxy.completionBlock = { proxyDone.signal() }
        second.privateCloudDatabase.add(proxy)
        await offPool { proxyDone.wait() }
        #expect(replayed.all == ["saved ll-0 true", "saved ll-1 true", "done true"])
        #expect(try await second.allLongLivedOperationIDs().isEmpty)

        gate.signal()
        gate.signal()
        await offPool { done.wait() }
        #expect(log.all.first == "persisted")
    }
}

/// Callback lines collected from operation queues.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    var all: [String] { lines.withLock { $0 } }
}
