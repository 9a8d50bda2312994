import Foundation
import Stratus
import StratusTestSupport
import Testing

/// Issue 12, "Network faults": a remote container's modifies and reads through a ``FaultProxy``
/// that drops the request, the response, or the connection — retries succeed and no modify is
/// applied twice (decision 0016.5).
@Suite("Remote containers: network faults, modifies and reads", .serialized, .timeLimit(.minutes(5)))
struct NetworkFaultTests {
    static func isModify(_ exchange: FaultProxyExchange) -> Bool { exchange.path.hasSuffix("records/modify") }

    @Test func aCreateWhoseResponseIsDroppedIsRetriedAndAppliedOnce() async throws {
        let fixture = try await NetworkFaultFixture()
        let before = try await fixture.token()
        fixture.proxy.setPlan(FaultProxy.failing(.dropResponse(afterBytes: 0), where: Self.isModify))
        let record = NetworkFaultFixture.record("created")
        // No change tag, `ifServerRecordUnchanged`: a `create`, which a second application
        // would refuse as a conflict.
        let result = try await fixture.throughProxy().modifyRecords(saving: [record], deleting: [])
        let saved = try #require(try result.saveResults[record.recordID]?.get(), "\(fixture.transcript)")

        try await fixture.waitForAnswers(to: ["records/modify"])
        let modifies = fixture.exchanges("records/modify")
        #expect(modifies.count == 2, "\(fixture.transcript)")
        #expect(modifies.allSatisfy { $0.reachedServer }, "both attempts reached the server: \(fixture.transcript)")
        #expect(modifies.first?.answered == false && modifies.last?.answered == true, "\(fixture.transcript)")
        #expect(modifies.first?.operationID != nil && modifies.first?.operationID == modifies.last?.operationID)
        let changes = try await fixture.changes(since: before)
        #expect(changes.tags == ["created": try #require(saved.recordChangeTag)], "one change, the one answered")
    }

    @Test func aRequestDroppedBeforeTheServerIsRetriedAndAppliedOnce() async throws {
        let fixture = try await NetworkFaultFixture()
        let before = try await fixture.token()
        // Cut in the head, then one byte short of the end of the body: the server never has a
        // whole request until the third try.
        let tries = FaultProxyCounter()
        fixture.proxy.setPlan { exchange, _ in
            guard Self.isModify(exchange) else { return .pass }
            switch tries.next() {
            case 0: return .dropRequest(afterBytes: 40)
            case 1: return .dropRequest(afterBytes: .max)
            default: return .pass
            }
        }
        let record = NetworkFaultFixture.record("late")
        let result = try await fixture.throughProxy().modifyRecords(saving: [record], deleting: [])
        let saved = try #require(try result.saveResults[record.recordID]?.get())

        let modifies = fixture.exchanges("records/modify")
        #expect(modifies.map(\.reachedServer) == [false, false, true], "\(fixture.transcript)")
        #expect(try await fixture.changes(since: before).tags == ["late": try #require(saved.recordChangeTag)])
    }

    @Test func aModifyWhoseAnswerIsStalledPastTheTimeoutIsAnsweredFromTheJournal() async throws {
        let fixture = try await NetworkFaultFixture(requestTimeout: .seconds(3))
        let before = try await fixture.token()
        fixture.proxy.setPlan(FaultProxy.failing(.stallResponse(seconds: 6), where: Self.isModify))
        let record = NetworkFaultFixture.record("slow")
        let result = try await fixture.throughProxy().modifyRecords(saving: [record], deleting: [])
        let saved = try #require(try result.saveResults[record.recordID]?.get(), "\(fixture.transcript)")

        let modifies = fixture.exchanges("records/modify")
        #expect(modifies.count >= 2 && modifies.allSatisfy { $0.reachedServer }, "\(fixture.transcript)")
        for exchange in modifies {
            let body = String(decoding: exchange.serverBody, as: UTF8.self)
            #expect(exchange.serverStatus == 200 && !body.contains("serverErrorCode"), "\(exchange): \(body)")
        }
        #expect(try await fixture.changes(since: before).tags == ["slow": try #require(saved.recordChangeTag)])
    }

    @Test func aBatchWhoseResponseIsDroppedIsAppliedOnce() async throws {
        let fixture = try await NetworkFaultFixture()
        let existing = try await fixture.direct().save(NetworkFaultFixture.record("existing", 1))
        let before = try await fixture.token()
        fixture.proxy.setPlan(FaultProxy.failing(.dropResponse(afterBytes: 100), where: Self.isModify))
        // Four creates and an update with the change tag: applied twice, every one of them would
        // conflict with the first application.
        existing["n"] = Int64(2)
        let records = (0..<4).map { NetworkFaultFixture.record("batch-\($0)", Int64($0)) } + [existing]
        let result = try await fixture.throughProxy().modifyRecords(saving: records, deleting: [], atomically: false)

        var answered: [String: String] = [:]
        for record in records {
            let saved = try #require(try result.saveResults[record.recordID]?.get(), "\(fixture.transcript)")
            answered[record.recordID.recordName] = saved.recordChangeTag
        }
        #expect(fixture.exchanges("records/modify").count == 2, "\(fixture.transcript)")
        #expect(try await fixture.changes(since: before).tags == answered, "each record changed once")
        let stored = try await fixture.direct().record(for: existing.recordID)
        #expect(stored["n"] as? Int64 == 2)
    }

    @Test func aDeleteWhoseResponseIsDroppedIsAppliedOnce() async throws {
        let fixture = try await NetworkFaultFixture()
        let records = [NetworkFaultFixture.record("gone-1"), NetworkFaultFixture.record("gone-2")]
        let saved = try await fixture.direct().modifyRecords(saving: records, deleting: [])
        #expect(saved.saveResults.values.allSatisfy { (try? $0.get()) != nil })
        let before = try await fixture.token()
        fixture.proxy.setPlan(FaultProxy.failing(.dropResponse(afterBytes: 0), where: Self.isModify))
        let ids = records.map(\.recordID)
        let result = try await fixture.throughProxy().modifyRecords(saving: [], deleting: ids)

        for id in ids {
            #expect((try? result.deleteResults[id]?.get()) != nil, "\(id.recordName): \(fixture.transcript)")
        }
        #expect(fixture.exchanges("records/modify").count == 2, "\(fixture.transcript)")
        let changes = try await fixture.changes(since: before)
        #expect(changes.tags.isEmpty && changes.deleted.sorted() == ["gone-1", "gone-2"])
    }

    @Test func aRequestStalledPastTheTimeoutArrivesLateAndIsNotAppliedTwice() async throws {
        let fixture = try await NetworkFaultFixture(requestTimeout: .seconds(4))
        let before = try await fixture.token()
        // The first attempt is held past the client's timeout; a retry is applied; then the
        // first attempt reaches the server, which answers it from the journal.
        fixture.proxy.setPlan(FaultProxy.failing(.stallRequest(seconds: 8), where: Self.isModify))
        let record = NetworkFaultFixture.record("stalled")
        let result = try await fixture.throughProxy().modifyRecords(saving: [record], deleting: [])
        let saved = try #require(try result.saveResults[record.recordID]?.get(), "\(fixture.transcript)")
        try await fixture.waitForStalledRequests()

        let modifies = fixture.exchanges("records/modify")
        #expect(modifies.count >= 2 && modifies.allSatisfy { $0.reachedServer }, "\(fixture.transcript)")
        #expect(Set(modifies.map(\.operationID)).count == 1, "one operation ID for every try")
        for exchange in modifies {
            // The late first try included: the journaled outcome, not a conflict of a second
            // application.
            let body = String(decoding: exchange.serverBody, as: UTF8.self)
            #expect(exchange.serverStatus == 200 && !body.contains("serverErrorCode"), "\(exchange): \(body)")
        }
        #expect(try await fixture.changes(since: before).tags == ["stalled": try #require(saved.recordChangeTag)])
    }

    @Test func readsRetriedAfterDropsSucceed() async throws {
        let fixture = try await NetworkFaultFixture()
        let records = (0..<3).map { NetworkFaultFixture.record("read-\($0)", Int64($0)) }
        _ = try await fixture.direct().modifyRecords(saving: records, deleting: [])
        fixture.proxy.setPlan(
            FaultProxy.failingFirst([
                ("records/lookup", .dropResponse(afterBytes: 20)), ("records/query", .closeAtOnce),
                ("records/changes", .dropRequest(afterBytes: 10)),
            ]))
        let database = fixture.throughProxy()
        let fetched = try await database.record(for: records[1].recordID)
        #expect(fetched["n"] as? Int64 == 1)
        let query = CKQuery(recordType: "Item", predicate: NSPredicate(format: "n >= %d", 1))
        let page = try await database.records(matching: query, inZoneWith: NetworkFaultFixture.zone)
        #expect(page.matchResults.map(\.0.recordName).sorted() == ["read-1", "read-2"])
        let changes = try await database.recordZoneChanges(inZoneWith: NetworkFaultFixture.zone, since: nil)
        #expect(changes.modificationResultsByID.count == 3)

        let operations = ["records/lookup", "records/query", "records/changes"]
        try await fixture.waitForAnswers(to: operations)
        for operation in operations {
            let exchanges = fixture.exchanges(operation)
            #expect(exchanges.map(\.answered) == [false, true], "\(operation): \(fixture.transcript)")
        }
    }
}
