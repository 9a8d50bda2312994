import Foundation
import StratusInMemory
import Testing

@testable import Stratus

/// stratusd's long-lived leases and hosted journal entries in the engine (decision 0014.8–10):
/// a lease is claimed only once expired and only by one process, a holder that lost its lease
/// learns it when renewing, and a header keeps its target and listing across encodings.
@Suite struct LongLivedLeaseTests {
    static let lease = LongLivedLease(journal: 7, operationID: "op")

    static func leases() throws -> LongLivedLeases {
        LongLivedLeases(engine: try Engine(backend: InMemoryBackend()))
    }

    @Test func anExpiredLeaseIsClaimedOnceAndItsOldHolderLosesIt() throws {
        let leases = try Self.leases()
        try leases.engine.write { txn in try LongLivedLeases.set(Self.lease, holder: "a", expiry: 100, txn) }
        #expect(try leases.claimExpired(holder: "b", now: 99, expiry: 200, limit: 10).leases.isEmpty, "not expired yet")
        #expect(try leases.renew([Self.lease], holder: "a", expiry: 150).isEmpty, "a still holds it")
        #expect(try leases.claimExpired(holder: "b", now: 151, expiry: 300, limit: 10).leases == [Self.lease])
        #expect(try leases.claimExpired(holder: "c", now: 152, expiry: 300, limit: 10).leases.isEmpty, "b holds it now")
        #expect(try leases.renew([Self.lease], holder: "a", expiry: 400) == [Self.lease], "a lost it")
        // A graceful release lets the next process claim at once.
        try leases.release(Self.lease, holder: "b")
        #expect(try leases.claimExpired(holder: "c", now: 153, expiry: 300, limit: 10).leases == [Self.lease])
        try leases.clear(Self.lease)
        #expect(try leases.claimExpired(holder: "d", now: 1_000, expiry: 2_000, limit: 10).leases.isEmpty)
    }

    @Test func aHostedHeaderKeepsItsTargetAndListing() throws {
        var header = JournalHeader(kind: "CKModifyRecordsOperation", scope: 1, createdAt: 5)
        #expect(try JournalHeader(decoding: header.encoded()) == header)
        #expect(header.encoded().first == 1, "an embedded operation's header is still version 1")
        header.target = JournalTarget(
            namespace: Namespace(container: "c", environment: .production, owner: ""),
            caller: Caller(userRecordName: "alice", role: .user))
        header.isListed = false
        let decoded = try JournalHeader(decoding: header.encoded())
        #expect(decoded == header)
        #expect(decoded.retention(listed: 86_400) == 3_600, "an unlisted entry is kept an hour")
    }
}
