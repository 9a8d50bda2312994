import Foundation
import Stratus
import StratusBackend
import StratusTestSupport
import Synchronization
import Testing

/// Automatic sync: with no `fetchChanges` / `sendChanges` call, a change made on one device —
/// or written by another handle on the store — reaches the other device (decision 0017.7:
/// a send 200 ms after the change; a look at the change log when another handle of the store
/// commits, and every 500 ms). The printed figures are in `Docs/SyncEngine.md`. A zone left
/// unfetched because the delegate's fetch options exclude it does not make the engine fetch
/// again until the server changes again; a fetch that fails for good waits, as after a
/// retryable failure, before the engine fetches again.
@Suite struct AutomaticSyncTests {
    @Test(arguments: SyncBackend.allCases)
    func aChangeOnOneDeviceAppearsOnTheOtherWithoutSyncCalls(_ backend: SyncBackend) async throws {
        try await backend.withTwoDevices(automaticallySync: true) { a, b, open in
            let clock = ContinuousClock()
            var start = clock.now
            a.createZone()
            a.write("n1", "one")
            try await eventually { b.notes == ["n1": "one"] }
            let first = clock.now - start

            start = clock.now
            b.write("n1", "one, edited on B")
            try await eventually { a.notes == ["n1": "one, edited on B"] }
            let second = clock.now - start

            // Another handle on the store writes with a plain operation: both devices see it.
            start = clock.now
            let record = CKRecord(recordType: "Note", recordID: a.recordID("n2"))
            record["text"] = "written by another handle"
            _ = try await open().privateCloudDatabase.save(record)
            try await eventually { a.notes["n2"] != nil && b.notes["n2"] != nil }
            let third = clock.now - start
            print("automatic sync on \(backend): A→B \(first), B→A \(second), other handle→A,B \(third)")
            a.stop()
            b.stop()
        }
    }

    @Test func aZoneTheDelegateExcludesDoesNotStartFetchAfterFetch() async throws {
        try await SyncBackend.memory.withStore { open in
            let (a, b) = (Device("A"), Device("B"))
            b.start(try open().privateCloudDatabase)
            b.createZone()
            b.write("n1", "one")
            try await b.engine.sendChanges()
            a.fetchOnly(.allExcluding([a.zoneID]))
            a.start(try open().privateCloudDatabase, automaticallySync: true)
            try await eventually { a.fetchCount >= 1 }
            try await Task.sleep(for: .seconds(3))
            // One fetch sees the zone changed and leaves it out; a look every 0.5 s that fetched
            // again each time would make about six.
            let fetches = a.fetchCount
            #expect(fetches <= 2)
            #expect(a.engine.state.zoneIDsWithUnfetchedServerChanges == [a.zoneID])
            #expect(a.notes.isEmpty)
            print("automatic sync with an excluded zone: \(fetches) fetch(es) in 3 s")

            // A new change on the server still starts a fetch.
            b.write("n2", "two")
            try await b.engine.sendChanges()
            try await eventually { a.fetchCount > fetches }
            a.stop()
        }
    }

    @Test func aFetchThatFailsForGoodWithAZoneUnfetchedDoesNotStartFetchEveryLook() async throws {
        try await SyncBackend.memory.withBackends { open in
            let failing = Atomic<Bool>(false)
            var hooks = BackendHooks()
            hooks.read = { base, body in
                if failing.load(ordering: .sequentiallyConsistent) {
                    throw BackendError(.internal, "the test made the store's reads fail")
                }
                try base.read(body)
            }
            let plain = CKContainer(identifier: "iCloud.sync-engine", backend: try open())
            let wrapped = CKContainer(
                identifier: "iCloud.sync-engine", backend: WrappingBackend(base: try open(), hooks: hooks))
            let (a, b) = (Device("A"), Device("B"))
            b.start(plain.privateCloudDatabase)
            b.createZone()
            b.write("n1", "one")
            try await b.engine.sendChanges()
            // A fetch that leaves the zone out leaves it unfetched in A's persisted state.
            a.fetchOnly(.allExcluding([a.zoneID]))
            a.start(wrapped.privateCloudDatabase)
            try await a.engine.fetchChanges()
            #expect(a.engine.state.zoneIDsWithUnfetchedServerChanges == [a.zoneID])
            a.stop()

            // A restarts with automatic sync while reading the database changes fails with
            // `internalError`, not retryable.
            failing.store(true, ordering: .sequentiallyConsistent)
            a.clearEvents()
            a.start(wrapped.privateCloudDatabase, automaticallySync: true)
            try await eventually { a.fetchCount >= 1 }
            try await Task.sleep(for: .seconds(3))
            // The waits after the first failure are 1 s, then 2 s: one or two more fetches in
            // 3 s; a fetch at every look (0.5 s) would make about seven in all.
            let fetches = a.fetchCount
            #expect(fetches <= 3)
            print("automatic sync with a fetch failing for good: \(fetches) fetch(es) in 3 s")
            a.stop()
        }
    }
}
