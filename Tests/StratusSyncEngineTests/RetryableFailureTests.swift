import Stratus
import StratusBackend
import StratusTestSupport
import Testing

/// A send that fails with a retryable error (the store unavailable: `serviceUnavailable`) reports
/// the change in `failedRecordSaves` and keeps it pending; the next send, with the store back,
/// saves it. Automatic sync waits before trying again, longer after each failure.
@Suite struct RetryableFailureTests {
    @Test func aRetryableFailureKeepsTheChangePendingUntilASendSucceeds() async throws {
        try await SyncBackend.memory.withBackends { open in
            let writes = FailingWrites(.unavailable, "the test made the store unavailable")
            let plain = CKContainer(identifier: "iCloud.sync-engine", backend: try open())
            let wrapped = CKContainer(identifier: "iCloud.sync-engine", backend: writes.backend(over: try open()))
            let a = Device("A")
            a.start(wrapped.privateCloudDatabase)
            a.createZone()
            try await a.engine.sendChanges()

            writes.fail(true)
            a.write("n1", "one")
            a.clearEvents()
            try await a.engine.sendChanges()
            // Reported as failed, and still pending.
            #expect(a.events.contains("sentRecordZoneChanges"))
            #expect(a.events.last == "didSendChanges")
            #expect(a.failedSaveCodes == [.serviceUnavailable])
            #expect(a.engine.state.pendingRecordZoneChanges == [.saveRecord(a.recordID("n1"))])

            writes.fail(false)
            try await a.engine.sendChanges()
            #expect(a.engine.state.pendingRecordZoneChanges.isEmpty)
            #expect(try await storeNotes(plain.privateCloudDatabase, zoneID: a.zoneID) == ["n1": "one"])
        }
    }

    @Test func automaticSyncBacksOffWhileTheStoreIsUnavailable() async throws {
        try await SyncBackend.memory.withBackends { open in
            let writes = FailingWrites(.unavailable, "the test made the store unavailable")
            let plain = CKContainer(identifier: "iCloud.sync-engine", backend: try open())
            let wrapped = CKContainer(identifier: "iCloud.sync-engine", backend: writes.backend(over: try open()))
            let a = Device("A")
            a.start(wrapped.privateCloudDatabase, automaticallySync: true)
            a.createZone()
            try await eventually { a.engine.state.pendingDatabaseChanges.isEmpty }

            writes.fail(true)
            a.write("n1", "one")
            try await eventually { a.failedSaveCodes.contains(.serviceUnavailable) }
            let first = writes.refused
            try await Task.sleep(for: .seconds(3))
            // `serviceUnavailable` asks for 2 s and the waits double from there: within 3 s of
            // the first failure one more attempt, two at most (a look every 0.5 s would make six).
            let more = writes.refused - first
            #expect(more <= 2)
            print("automatic sync with the store unavailable: \(more) more attempt(s) in 3 s after the first failure")

            writes.fail(false)
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
            let writes = FailingWrites(.corrupted, "the test damaged the store")
            let plain = CKContainer(identifier: "iCloud.sync-engine", backend: try open())
            let wrapped = CKContainer(identifier: "iCloud.sync-engine", backend: writes.backend(over: try open()))
            let a = try await writes.deviceSavingAZone(through: wrapped)
            try await eventually { writes.refused > 0 }
            let first = writes.refused
            try await Task.sleep(for: .seconds(3))
            // The waits are 1 s, then 2 s: within 3 s of the first failure two more attempts at
            // most (a look every 0.5 s would make six).
            let more = writes.refused - first
            #expect(more <= 2)
            #expect(a.engine.state.pendingDatabaseChanges == [.saveZone(CKRecordZone(zoneID: a.zoneID))])

            writes.fail(false)
            try await eventually { a.engine.state.pendingDatabaseChanges.isEmpty }
            let zones = try await plain.privateCloudDatabase.allRecordZones().map(\.zoneID)
            #expect(zones.contains(a.zoneID))
            a.stop()
        }
    }
}
