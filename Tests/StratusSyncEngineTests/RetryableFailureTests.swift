import Stratus
import StratusBackend
import StratusTestSupport
import Synchronization
import Testing

/// A send that fails with a retryable error (the store unavailable: `serviceUnavailable`) reports
/// the change in `failedRecordSaves` and keeps it pending; the next send, with the store back,
/// saves it. Automatic sync waits before trying again, longer after each failure.
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

    @Test func automaticSyncBacksOffWhileTheStoreIsUnavailable() async throws {
        try await SyncBackend.memory.withBackends { open in
            let failing = Atomic<Bool>(false)
            let refused = Atomic<Int>(0)
            var hooks = BackendHooks()
            hooks.write = { base, body in
                if failing.load(ordering: .sequentiallyConsistent) {
                    refused.add(1, ordering: .sequentiallyConsistent)
                    throw BackendError(.unavailable, "the test made the store unavailable")
                }
                try base.write(body)
            }
            let plain = CKContainer(identifier: "iCloud.sync-engine", backend: try open())
            let wrapped = CKContainer(
                identifier: "iCloud.sync-engine", backend: WrappingBackend(base: try open(), hooks: hooks))
            let a = Device("A")
            a.start(wrapped.privateCloudDatabase, automaticallySync: true)
            a.createZone()
            try await eventually { a.engine.state.pendingDatabaseChanges.isEmpty }

            failing.store(true, ordering: .sequentiallyConsistent)
            a.write("n1", "one")
            try await eventually { a.failedSaveCodes.contains(.serviceUnavailable) }
            let first = refused.load(ordering: .sequentiallyConsistent)
            try await Task.sleep(for: .seconds(3))
            // `serviceUnavailable` asks for 2 s and the waits double from there: within 3 s of
            // the first failure one more attempt, two at most (a look every 0.5 s would make six).
            let more = refused.load(ordering: .sequentiallyConsistent) - first
            #expect(more <= 2)
            print("automatic sync with the store unavailable: \(more) more attempt(s) in 3 s after the first failure")

            failing.store(false, ordering: .sequentiallyConsistent)
            try await eventually { a.engine.state.pendingRecordZoneChanges.isEmpty }
            #expect(try await storeNotes(plain.privateCloudDatabase, zoneID: a.zoneID) == ["n1": "one"])
            a.stop()
        }
    }

    /// A send that fails for good as a whole (the store damaged: `internalError`) keeps the
    /// zone save pending, and automatic sync waits before trying it again, as after a retryable
    /// failure, instead of sending it at every look; once the store mends, the save goes.
    @Test func automaticSyncBacksOffAfterASendThatFailsForGood() async throws {
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
            let plain = CKContainer(identifier: "iCloud.sync-engine", backend: try open())
            let wrapped = CKContainer(
                identifier: "iCloud.sync-engine", backend: WrappingBackend(base: try open(), hooks: hooks))
            // Opened before the damage, so that only the sends write.
            _ = try await wrapped.privateCloudDatabase.allRecordZones()
            failing.store(true, ordering: .sequentiallyConsistent)
            let a = Device("A")
            a.start(wrapped.privateCloudDatabase, automaticallySync: true)
            a.createZone()
            try await eventually { refused.load(ordering: .sequentiallyConsistent) > 0 }
            let first = refused.load(ordering: .sequentiallyConsistent)
            try await Task.sleep(for: .seconds(3))
            // The waits are 1 s, then 2 s: within 3 s of the first failure two more attempts at
            // most (a look every 0.5 s would make six).
            let more = refused.load(ordering: .sequentiallyConsistent) - first
            #expect(more <= 2)
            #expect(a.engine.state.pendingDatabaseChanges == [.saveZone(CKRecordZone(zoneID: a.zoneID))])

            failing.store(false, ordering: .sequentiallyConsistent)
            try await eventually { a.engine.state.pendingDatabaseChanges.isEmpty }
            let zones = try await plain.privateCloudDatabase.allRecordZones().map(\.zoneID)
            #expect(zones.contains(a.zoneID))
            a.stop()
        }
    }
}
