import Stratus
import StratusBackend
import StratusTestSupport
import Synchronization
import Testing

/// A send that fails with a retryable error (the store unavailable: `serviceUnavailable`) reports
/// the change in `failedRecordSaves` and keeps it pending; the next send, with the store back,
/// saves it.
@Suite struct RetryableFailureTests {
    @Test func aRetryableFailureKeepsTheChangePendingUntilASendSucceeds() async throws {
        try await SyncBackend.memory.withBackends { open in
            let failing = Atomic<Bool>(false)
            var hooks = BackendHooks()
            hooks.write = { base, body in
                if failing.load(ordering: .sequentiallyConsistent) {
                    throw BackendError(.unavailable, "the test made the store unavailable")
                }
                try base.write(body)
            }
            let plain = CKContainer(identifier: "iCloud.sync-engine", backend: try open())
            let wrapped = CKContainer(
                identifier: "iCloud.sync-engine", backend: WrappingBackend(base: try open(), hooks: hooks))
            let a = Device("A")
            a.start(wrapped.privateCloudDatabase)
            a.createZone()
            try await a.engine.sendChanges()

            failing.store(true, ordering: .sequentiallyConsistent)
            a.write("n1", "one")
            a.clearEvents()
            try await a.engine.sendChanges()
            // Reported as failed, and still pending.
            #expect(a.events.contains("sentRecordZoneChanges"))
            #expect(a.events.last == "didSendChanges")
            #expect(a.failedSaveCodes == [.serviceUnavailable])
            #expect(a.engine.state.pendingRecordZoneChanges == [.saveRecord(a.recordID("n1"))])

            failing.store(false, ordering: .sequentiallyConsistent)
            try await a.engine.sendChanges()
            #expect(a.engine.state.pendingRecordZoneChanges.isEmpty)
            #expect(try await storeNotes(plain.privateCloudDatabase, zoneID: a.zoneID) == ["n1": "one"])
        }
    }
}
