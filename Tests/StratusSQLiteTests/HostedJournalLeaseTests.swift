import Foundation
import StratusBackend
import Synchronization
import Testing

@testable import Stratus

/// stratusd's long-lived leases and submissions on a real SQLite file (decision 0014.8–10): a
/// claim pass reads one page of leases and the next goes on after it, only claims of leases
/// left to expire count as attempts, a user cannot have more than the maximum running, and an
/// abandoned operation finishes with an internal error.
@Suite struct HostedJournalLeaseTests {
    typealias Store = JournalTestStore
    static let owner = JournalTestStore.owner

    @Test func aClaimPassReadsOnePageAndTheNextGoesOnAfterIt() throws {
        let store = try Store()
        defer { store.destroy() }
        let leases = LongLivedLeases(engine: store.engine)
        try store.engine.write { txn in
            for index in 0..<5 {
                let lease = LongLivedLease(journal: 1, operationID: "op\(index)")
                try LongLivedLeases.set(lease, holder: "a", expiry: index == 4 ? 10 : 1_000, txn)
            }
        }
        var cursor: [UInt8]?
        var passes = 0
        var claimed: [LongLivedLease] = []
        repeat {
            let pass = try leases.claimExpired(
                holder: "b", now: 100, expiry: 2_000, limit: 10, after: cursor, pageSize: 2)
            claimed += pass.leases
            cursor = pass.cursor
            passes += 1
        } while claimed.isEmpty && passes < 10
        #expect(claimed == [LongLivedLease(journal: 1, operationID: "op4")])
        #expect(passes == 3, "the expired lease is on the third page of two")
        // More expired leases than a pass claims: the next pass starts after the last claimed.
        try store.engine.write { txn in
            for index in 0..<4 {
                try LongLivedLeases.set(
                    LongLivedLease(journal: 1, operationID: "op\(index)"), holder: "a", expiry: 10, txn)
            }
        }
        let first = try leases.claimExpired(holder: "c", now: 100, expiry: 2_000, limit: 2, after: nil, pageSize: 10)
        let second = try leases.claimExpired(
            holder: "c", now: 100, expiry: 2_000, limit: 2, after: first.cursor, pageSize: 10)
        #expect(first.leases.map(\.operationID) == ["op0", "op1"])
        #expect(second.leases.map(\.operationID) == ["op2", "op3"])
        #expect(second.cursor == nil, "the pass reached the end: the next starts again")
    }

    @Test func onlyClaimsOfLeasesLeftToExpireCountAsAttempts() throws {
        let store = try Store()
        defer { store.destroy() }
        let leases = LongLivedLeases(engine: store.engine)
        let lease = LongLivedLease(journal: 1, operationID: "op")
        // A lease written before claims were counted: holder and expiry only.
        var old = ByteWriter()
        old.write("a")
        old.write(10.0)
        try store.engine.write { txn in try txn.set(LongLivedLeases.key(lease), old.bytes) }
        #expect(try leases.claimExpired(holder: "b", now: 100, expiry: 200, limit: 1).claims[lease] == 1)
        try leases.release(lease, holder: "b")
        #expect(
            try leases.claimExpired(holder: "c", now: 100, expiry: 200, limit: 1).claims[lease] == 1,
            "a graceful release is no failed attempt")
        #expect(try leases.claimExpired(holder: "d", now: 300, expiry: 400, limit: 1).claims[lease] == 2)
    }

    @Test func aUserCannotHaveMoreThanTheMaximumRunning() throws {
        let store = try Store()
        defer { store.destroy() }
        for index in 0..<3 { try store.submit("op\(index)", maximumRunning: 3) }
        let refusal = #expect(throws: CKError.self) { try store.submit("op3", maximumRunning: 3) }
        #expect(
            refusal?.code == .requestRateLimited && refusal?.retryAfterSeconds != nil, "\(String(describing: refusal))")
        if case .created = try store.submit("op0", maximumRunning: 3) {
            Issue.record("a resubmission is answered from the journal, not created again")
        }
        #expect(try store.journal().cancel("op1"))
        guard case .created = try store.submit("op3", maximumRunning: 3) else {
            Issue.record("a cancelled operation no longer counts")
            return
        }
    }

    @Test func anAbandonedOperationFinishesWithAnInternalError() throws {
        let store = try Store()
        defer { store.destroy() }
        try store.submit("op")
        let journal = try store.journal()
        #expect(try journal.abandon("op", attempts: 5))
        #expect(try journal.status("op")?.state == .completed)
        let events = try journal.events("op", from: 0, limit: 10)
        try #require(events.count == 1)
        var reader = ByteReader(events[0].bytes)
        let context = try store.engine.database(namespace: Self.owner, scope: .private)
        guard case .finished(let error?) = try CKModifyRecordsOperation.Event.decode(from: &reader, context: context)
        else {
            Issue.record("the final callback is a failure")
            return
        }
        #expect(error.code == .internalError)
        #expect(error.message.contains("abandoned after 5 attempts"), "\(error.message)")
        #expect(try !journal.abandon("op", attempts: 5), "a finished operation is not abandoned again")
    }
}
