import Foundation
import Stratus
import StratusTestSupport
import Testing

/// Issue 12, "Network faults", for long-lived operations run by the server (decision 0016.6):
/// an interrupted submission or events long-poll loses and repeats no callback, and a cancel
/// reaches the server through a dropped answer.
@Suite("Remote containers: network faults, long-lived operations", .serialized, .timeLimit(.minutes(5)))
struct NetworkFaultLongLivedTests {
    /// Runs `operation` on `database` and waits for its completion block.
    static func run(_ operation: CKDatabaseOperation, on database: CKDatabase) async {
        let done = DispatchSemaphore(value: 0)
        operation.completionBlock = { done.signal() }
        database.add(operation)
        await offPool { done.wait() }
    }

    @Test func interruptedPollsDeliverEveryCallbackOnceInOrder() async throws {
        let fixture = try await NetworkFaultFixture()
        fixture.proxy.setPlan(
            FaultProxy.failingFirst([
                ("stratus/operations/submit", .dropResponse(afterBytes: 0)), ("/events", .closeAtOnce),
            ]))
        let log = Lines()
        let operation = RemoteLongLivedTests.modify(RemoteLongLivedTests.notes(3), log: log)
        let database = fixture.throughProxy()
        await Self.run(operation, on: database)

        #expect(
            log.all == ["persisted", "saved ll-0 true", "saved ll-1 true", "saved ll-2 true", "done true"],
            "\(fixture.transcript)")
        let submits = fixture.exchanges("stratus/operations/submit")
        #expect(submits.count == 2 && submits.allSatisfy { $0.reachedServer }, "resubmitted: \(fixture.transcript)")
        #expect(fixture.exchanges("/events").first?.answered == false, "\(fixture.transcript)")
        #expect(try await fixture.remote.alice().allLongLivedOperationIDs().isEmpty, "delivered, so not listed")
    }

    @Test func aDroppedEventsAnswerAfterTheServerReadItRepeatsNoCallback() async throws {
        let fixture = try await NetworkFaultFixture()
        // Every other events answer is lost after the server sent it.
        let count = FaultProxyCounter()
        fixture.proxy.setPlan { exchange, _ in
            guard exchange.path.hasSuffix("/events") else { return .pass }
            return count.next() % 2 == 0 ? .dropResponse(afterBytes: 50) : .pass
        }
        let log = Lines()
        let operation = RemoteLongLivedTests.modify(RemoteLongLivedTests.notes(5), log: log)
        await Self.run(operation, on: fixture.throughProxy())
        let expected = ["persisted"] + (0..<5).map { "saved ll-\($0) true" } + ["done true"]
        #expect(log.all == expected, "\(fixture.transcript)")
        #expect(fixture.exchanges("/events").contains { !$0.answered && $0.serverStatus == 200 })
    }

    @Test func aCancelReachesTheServerThroughADroppedAnswer() async throws {
        let fixture = try await NetworkFaultFixture()
        let records = (0..<3).map { NetworkFaultFixture.record("fetched-\($0)") }
        _ = try await fixture.direct().modifyRecords(saving: records, deleting: [])
        fixture.proxy.setPlan(FaultProxy.failingFirst([("/cancel", .dropResponse(afterBytes: 0))]))
        // A long-lived fetch (a modify's callbacks are never cancelled once it committed), held
        // in its first callback.
        let operation = CKFetchRecordsOperation(recordIDs: records.map(\.recordID))
        operation.configuration.isLongLived = true
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let log = Lines()
        operation.perRecordResultBlock = { id, _ in
            entered.signal()
            gate.wait()
            log.append("fetched \(id.recordName)")
        }
        operation.fetchRecordsResultBlock = { result in
            if case .failure(let error as CKError) = result { log.append("failed \(error.code.name)") }
        }
        let done = DispatchSemaphore(value: 0)
        operation.completionBlock = { done.signal() }
        fixture.throughProxy().add(operation)

        // Held in its first callback, and listed: not delivered yet.
        let inCallback = await offPool { entered.wait(timeout: .now() + 60) }
        #expect(inCallback == .success, "\(fixture.transcript)")
        let other = fixture.remote.alice()
        #expect(try await other.allLongLivedOperationIDs() == [operation.operationID])
        operation.cancel()
        for _ in records { gate.signal() }
        await offPool { done.wait() }

        #expect(log.all == ["fetched fetched-0", "failed operationCancelled"], "\(fixture.transcript)")
        let cancels = fixture.exchanges("/cancel")
        #expect(cancels.count == 2 && cancels.allSatisfy { $0.reachedServer }, "retried: \(fixture.transcript)")
        #expect(try await other.allLongLivedOperationIDs().isEmpty, "the server has it cancelled")
    }

    @Test func pollsThatKeepFailingEndInNetworkFailureAndAProxyDeliversLater() async throws {
        let fixture = try await NetworkFaultFixture()
        fixture.proxy.setPlan(FaultProxy.failing(.closeAtOnce, times: .max) { $0.path.hasSuffix("/events") })
        let log = Lines()
        let operation = RemoteLongLivedTests.modify(RemoteLongLivedTests.notes(3), log: log)
        operation.modifyRecordsResultBlock = { result in
            if case .failure(let error as CKError) = result { log.append("failed \(error.code.name)") }
        }
        await Self.run(operation, on: fixture.throughProxy())
        #expect(log.all == ["persisted", "failed networkFailure"], "\(fixture.transcript)")
        #expect(fixture.exchanges("/events").count == 4, "the first try and three retries")

        // The server ran it all the same; once the network is back, a proxy delivers each
        // callback once, in order.
        fixture.proxy.setPlan { _, _ in .pass }
        let container = fixture.remote.alice()
        #expect(try await container.allLongLivedOperationIDs() == [operation.operationID])
        let proxy = try #require(
            try await container.longLivedOperation(for: operation.operationID) as? CKModifyRecordsOperation)
        let replayed = Lines()
        proxy.perRecordSaveBlock = { id, result in
            replayed.append("saved \(id.recordName) \((try? result.get()) != nil)")
        }
        proxy.modifyRecordsResultBlock = { result in replayed.append("done \((try? result.get()) != nil)") }
        await Self.run(proxy, on: container.privateCloudDatabase)
        #expect(replayed.all == ["saved ll-0 true", "saved ll-1 true", "saved ll-2 true", "done true"])
    }

    @Test func aGapInTheEventsFailsTheOperationThroughItsFinalCallback() async throws {
        let fixture = try await NetworkFaultFixture()
        // An events answer (from a broken intermediary) that starts after the callback asked for.
        let answer = FaultProxy.response(
            status: 200, headers: [("Content-Type", "application/json")],
            body: #"{"events":[{"sequence":2,"event":"AA=="}],"state":"running"}"#)
        fixture.proxy.setPlan(FaultProxy.failingFirst([("/events", .respond(answer))]))
        let log = Lines()
        let operation = RemoteLongLivedTests.modify(RemoteLongLivedTests.notes(3), log: log)
        operation.modifyRecordsResultBlock = { result in
            if case .failure(let error as CKError) = result { log.append("failed \(error.code.name)") }
        }
        let done = DispatchSemaphore(value: 0)
        operation.completionBlock = { done.signal() }
        fixture.throughProxy().add(operation)
        let finished = await offPool { done.wait(timeout: .now() + 60) }
        #expect(finished == .success, "the operation completed")
        // Before: the run returned silently, so the operation finished without its final
        // callback and the app never learned the outcome.
        #expect(log.all == ["persisted", "failed internalError"], "\(fixture.transcript)")
    }
}
