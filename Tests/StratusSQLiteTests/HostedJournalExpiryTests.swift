import Foundation
import StratusBackend
import Synchronization
import Testing

@testable import Stratus

/// The long-lived journal's expiry index on a real SQLite file (decision 0014.11): expired
/// entries are purged through it without anyone listing, in bounded batches, a delivery after
/// completion moves the expiry, and entries finished before the index existed are still purged
/// when their user lists.
@Suite struct HostedJournalExpiryTests {
    typealias Store = JournalTestStore
    static let owner = JournalTestStore.owner
    static let day = 24.0 * 3600

    @Test func expiredEntriesArePurgedWithoutAnyoneListing() throws {
        let store = try Store()
        defer { store.destroy() }
        try store.submit("listed")
        try store.submit("unlisted", listed: false)
        try store.submit("running")
        #expect(try store.journal().cancel("listed"))
        #expect(try store.journal().cancel("unlisted"))
        #expect(try store.indexKeys() == 2, "one key per finished entry, written when it finished")
        #expect(try store.engine.purgeExpiredJournalEntries() == 0, "nothing has expired yet")
        store.advance(by: 3601)
        #expect(try store.engine.purgeExpiredJournalEntries() == 1, "an unlisted entry is kept an hour")
        #expect(try !store.has("unlisted") && store.has("listed"))
        store.advance(by: Self.day)
        #expect(try store.engine.purgeExpiredJournalEntries() == 1)
        #expect(try !store.has("listed"), "a listed entry is kept 24 hours")
        #expect(try store.has("running"), "a running operation is never purged")
        #expect(try store.indexKeys() == 0)
        let leftovers = try store.engine.read { txn in
            try txn.scan(
                KeyRange(prefix: JournalKeys(containerNumber: store.journal().number).prefix.bytes), limit: 100)
        }
        #expect(leftovers.count == 2, "the running entry's header and request only: \(leftovers.count)")
    }

    @Test func anIdempotentModifysEntryIsIndexedWithItsWrites() throws {
        let store = try Store()
        defer { store.destroy() }
        let context = try store.engine.database(
            namespace: Self.owner, scope: .private, caller: Caller(userRecordName: "_alice", role: .user))
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n"))
        record["title"] = "once"
        let request = ModifyRequest(
            records: [record], deletes: [], policy: .allKeys, atomic: false, clientChangeTokenData: nil)
        _ = try store.journal().idempotentModify(
            "retry-me", fingerprint: [1, 2, 3], context: context, request: request)
        #expect(try store.indexKeys() == 1, "the outcome's entry is indexed in the modify's transaction")
        store.advance(by: 3601)
        #expect(try store.engine.purgeExpiredJournalEntries() == 1)
        #expect(try !store.has("retry-me"))
    }

    @Test func aDeliveryAfterCompletionMovesTheExpiry() throws {
        let store = try Store()
        defer { store.destroy() }
        try store.submit("op")
        let journal = try store.journal()
        try journal.journal.append("op", events: [], at: 0, final: true, now: journal.now)
        store.advance(by: 10 * 3600)
        #expect(try journal.markDelivered("op"))
        #expect(try store.indexKeys() == 1, "the delivery replaced the completion's key")
        store.advance(by: Self.day - 3600)
        #expect(try store.engine.purgeExpiredJournalEntries() == 0, "delivered 15 hours ago: kept")
        #expect(try store.has("op") && store.indexKeys() == 1, "the delivery's key stays")
        store.advance(by: 3601)
        #expect(try store.engine.purgeExpiredJournalEntries() == 1)
        #expect(try !store.has("op"))
    }

    @Test func thePurgeRemovesAtMostItsBatchesPerRound() throws {
        let store = try Store()
        defer { store.destroy() }
        for index in 0..<5 {
            try store.submit("op\(index)")
            #expect(try store.journal().cancel("op\(index)"))
        }
        store.advance(by: Self.day + 1)
        #expect(try store.engine.purgeExpiredJournalEntries(batch: 2, maximumBatches: 1) == 2)
        #expect(try store.engine.purgeExpiredJournalEntries(batch: 2, maximumBatches: 1) == 2)
        #expect(try store.engine.purgeExpiredJournalEntries(batch: 2, maximumBatches: 1) == 1)
        #expect(try (0..<5).allSatisfy { try !store.has("op\($0)") })
    }

    @Test func entriesWithoutAnIndexKeyAreStillPurgedWhenListed() throws {
        let store = try Store()
        defer { store.destroy() }
        try store.submit("old")
        #expect(try store.journal().cancel("old"))
        // An entry finished before the index existed: no key.
        try store.engine.write { txn in try txn.clearRange(KeyRange(prefix: [StoreLayout.journalExpiryTag])) }
        store.advance(by: Self.day + 1)
        #expect(try store.engine.purgeExpiredJournalEntries() == 0)
        #expect(try store.has("old"))
        #expect(try store.journal().outstandingIDs().isEmpty)
        #expect(try !store.has("old"), "listing purged it")
    }
}

extension JournalTestStore {
    /// The keys of the expiry index.
    func indexKeys() throws -> Int {
        try engine.read { txn in try txn.scan(KeyRange(prefix: [StoreLayout.journalExpiryTag]), limit: 1000).count }
    }
}
