import StratusBackend
import StratusTestSupport
import Synchronization
import Testing

@testable import Stratus

/// An explicit `sendChanges()` that succeeds ends automatic sync's backoff of sends: the app
/// that mended the failure (freed space, signed in) does not wait up to a minute more for its
/// next change to go.
@Suite struct ExplicitSendBackoffTests {
    @Test func anExplicitSendThatSucceedsEndsTheSendsBackoff() async throws {
        try await SyncBackend.memory.withBackends { open in
            let failing = Atomic<Bool>(false)
            let refused = Atomic<Int>(0)
            var hooks = BackendHooks()
            hooks.write = { base, body in
                if failing.load(ordering: .sequentiallyConsistent) {
                    refused.add(1, ordering: .sequentiallyConsistent)
                    throw BackendError(.corrupted, "the test damaged the store")
                }
                try base.write(body)
            }
            let wrapped = CKContainer(
                identifier: "iCloud.sync-engine", backend: WrappingBackend(base: try open(), hooks: hooks))
            _ = try await wrapped.privateCloudDatabase.allRecordZones()
            failing.store(true, ordering: .sequentiallyConsistent)
            let a = Device("A")
            a.start(wrapped.privateCloudDatabase, automaticallySync: true)
            a.createZone()
            // Three scheduled sends failed, and the third one's failure is noted (after its
            // refused write): the next waits 4 s, and no scheduled send runs meanwhile.
            let scheduler = try #require(a.engine.scheduler.withLock { $0 })
            try await eventually {
                refused.load(ordering: .sequentiallyConsistent) >= 3 && scheduler.isBackingOff(sends: true)
            }

            failing.store(false, ordering: .sequentiallyConsistent)
            try await a.engine.sendChanges()
            #expect(a.engine.state.pendingDatabaseChanges.isEmpty)
            #expect(!scheduler.isBackingOff(sends: true))
            a.stop()
        }
    }
}
