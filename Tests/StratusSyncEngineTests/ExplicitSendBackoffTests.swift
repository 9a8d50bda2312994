import StratusBackend
import StratusTestSupport
import Testing

@testable import Stratus

/// An explicit `sendChanges()` that succeeds ends automatic sync's backoff of sends: the app
/// that mended the failure (freed space, signed in) does not wait up to a minute more for its
/// next change to go.
@Suite struct ExplicitSendBackoffTests {
    @Test func anExplicitSendThatSucceedsEndsTheSendsBackoff() async throws {
        try await SyncBackend.memory.withBackends { open in
            let writes = FailingWrites(.corrupted, "the test damaged the store")
            let wrapped = CKContainer(identifier: "iCloud.sync-engine", backend: writes.backend(over: try open()))
            let a = try await writes.deviceSavingAZone(through: wrapped)
            // Three scheduled sends failed, and the third one's failure is noted (after its
            // refused write): the next waits 4 s, and no scheduled send runs meanwhile.
            let scheduler = try #require(a.engine.scheduler.withLock { $0 })
            try await eventually {
                writes.refused >= 3 && scheduler.isBackingOff(sends: true)
            }

            writes.fail(false)
            try await a.engine.sendChanges()
            #expect(a.engine.state.pendingDatabaseChanges.isEmpty)
            #expect(!scheduler.isBackingOff(sends: true))
            a.stop()
        }
    }
}
