import Foundation
import Stratus
import Testing

/// Changing the state through its public API posts a `stateUpdate` with the new serialization,
/// as Apple documents: "This event also happens when you change the state yourself." Without
/// it a removed change comes back after a restart from the last persisted serialization.
@Suite struct StateUpdateTests {
    @Test(arguments: SyncBackend.allCases)
    func removingPendingChangesOrUntrackedChangesPostsTheState(_ backend: SyncBackend) async throws {
        try await backend.withStore { open in
            let database = try open().privateCloudDatabase
            let a = Device("A")
            a.start(database)
            a.createZone()
            a.write("n1", "one")
            a.engine.state.hasPendingUntrackedChanges = true
            let added = await Self.eventually {
                let state = Self.restored(a.serialization, on: database)
                return state.pendingRecordZoneChanges == [.saveRecord(a.recordID("n1"))]
                    && state.pendingDatabaseChanges.count == 1 && state.hasPendingUntrackedChanges
            }
            try #require(added)

            try await Self.expectStateUpdate(from: a) {
                a.engine.state.remove(pendingRecordZoneChanges: [.saveRecord(a.recordID("n1"))])
            }
            try await Self.expectStateUpdate(from: a) {
                a.engine.state.remove(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: a.zoneID))])
            }
            try await Self.expectStateUpdate(from: a) { a.engine.state.hasPendingUntrackedChanges = false }

            a.stop()
            a.start(database)
            #expect(a.engine.state.pendingRecordZoneChanges.isEmpty)
            #expect(a.engine.state.pendingDatabaseChanges.isEmpty)
            #expect(!a.engine.state.hasPendingUntrackedChanges)
        }
    }

    @Test(arguments: SyncBackend.allCases)
    func aRecordProviderThatRemovesItsChangeAndGivesNilPostsTheState(_ backend: SyncBackend) async throws {
        try await backend.withStore { open in
            let database = try open().privateCloudDatabase
            let phone = SampleSyncedDatabase(database: database)
            await phone.save("Ada", id: "c1")
            await phone.forget(id: "c1")
            // The state update for the added change comes first, so only a later one can drop it.
            let added = await Self.eventually {
                !Self.restored(await phone.stateSerialization, on: database).pendingRecordZoneChanges.isEmpty
            }
            try #require(added)
            try await phone.syncEngine.sendChanges()
            let persisted = await Self.eventually {
                Self.restored(await phone.stateSerialization, on: database).pendingRecordZoneChanges.isEmpty
            }
            #expect(persisted)
        }
    }

    /// Runs `change`, then expects a `stateUpdate` from `device` within 2 s.
    private static func expectStateUpdate(from device: Device, _ change: () -> Void) async throws {
        let before = stateUpdates(device)
        change()
        let posted = await eventually { stateUpdates(device) > before }
        #expect(posted)
    }

    private static func stateUpdates(_ device: Device) -> Int {
        device.events.filter { $0 == "stateUpdate" }.count
    }

    /// Whether `condition` holds within 2 s.
    private static func eventually(_ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return await condition()
    }

    /// The state of an engine started from `serialization` (without syncing).
    private static func restored(
        _ serialization: CKSyncEngine.State.Serialization?, on database: CKDatabase
    ) -> CKSyncEngine.State {
        let delegate = Device("restored")
        var configuration = CKSyncEngine.Configuration(
            database: database, stateSerialization: serialization, delegate: delegate)
        configuration.automaticallySync = false
        return CKSyncEngine(configuration).state
    }
}

extension SampleSyncedDatabase {
    /// Drops a contact locally without telling the engine, as when the app's own record is gone
    /// by the time the engine asks for it.
    func forget(id: String) {
        contacts[id] = nil
    }
}
