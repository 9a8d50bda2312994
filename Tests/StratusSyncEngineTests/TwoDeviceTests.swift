import Stratus
import Testing

/// Two devices — two engines, each with its own state and local model — on one store, on every
/// backend, syncing by explicit `sendChanges` / `fetchChanges` calls.
@Suite struct TwoDeviceTests {
    @Test(arguments: SyncBackend.allCases)
    func createEditAndDeleteReachTheOtherDeviceBothWays(_ backend: SyncBackend) async throws {
        try await backend.withTwoDevices { a, b, open in
            a.createZone()
            a.write("n1", "one")
            a.write("n2", "two")
            try await a.engine.sendChanges()
            // A's first fetch takes its tokens; from then on it is told of deletions too (a fetch
            // from nil reports what exists, not what was deleted, decision 0003).
            try await a.engine.fetchChanges()
            try await b.engine.fetchChanges()
            #expect(b.notes == ["n1": "one", "n2": "two"])

            b.write("n1", "one, edited on B")
            b.write("n3", "three")
            b.delete("n2")
            try await b.engine.sendChanges()
            try await a.engine.fetchChanges()
            #expect(a.notes == ["n1": "one, edited on B", "n3": "three"])

            a.write("n3", "three, edited on A")
            a.delete("n1")
            try await a.engine.sendChanges()
            try await b.engine.fetchChanges()
            #expect(b.notes == ["n3": "three, edited on A"])
            #expect(a.engine.state.pendingRecordZoneChanges.isEmpty)
            #expect(b.engine.state.pendingRecordZoneChanges.isEmpty)
            #expect(try await storeNotes(try open().privateCloudDatabase, zoneID: a.zoneID) == b.notes)
        }
    }

    @Test(arguments: SyncBackend.allCases)
    func concurrentEditsResolveThroughServerRecordChanged(_ backend: SyncBackend) async throws {
        try await backend.withTwoDevices { a, b, open in
            a.createZone()
            a.write("n", "v1")
            try await a.engine.sendChanges()
            try await b.engine.fetchChanges()

            a.write("n", "from A")
            b.write("n", "from B")
            try await a.engine.sendChanges()
            b.clearEvents()
            try await b.engine.sendChanges()
            // B's first save failed with serverRecordChanged carrying A's record; B put its text on
            // that record and the same send saved it.
            #expect(b.conflictServerTexts == ["from A"])
            #expect(b.events.filter { $0 == "sentRecordZoneChanges" }.count == 2)
            #expect(b.engine.state.pendingRecordZoneChanges.isEmpty)
            try await a.engine.fetchChanges()
            #expect(a.notes == ["n": "from B"])
            #expect(try await storeNotes(try open().privateCloudDatabase, zoneID: a.zoneID) == ["n": "from B"])
        }
    }

    @Test(arguments: SyncBackend.allCases)
    func aZoneDeletedOnOneDeviceReachesTheOther(_ backend: SyncBackend) async throws {
        try await backend.withTwoDevices { a, b, open in
            a.createZone()
            a.write("n1", "one")
            try await a.engine.sendChanges()
            try await a.engine.fetchChanges()
            try await b.engine.fetchChanges()
            #expect(b.notes == ["n1": "one"])

            b.deleteZone()
            try await b.engine.sendChanges()
            #expect(b.engine.state.pendingDatabaseChanges.isEmpty)
            a.clearEvents()
            try await a.engine.fetchChanges()
            #expect(a.events.contains("fetchedDatabaseChanges"))
            #expect(a.notes.isEmpty)
            #expect(try await storeNotes(try open().privateCloudDatabase, zoneID: a.zoneID) == nil)
        }
    }

    @Test(arguments: SyncBackend.allCases)
    func aRestartFromThePersistedStateFetchesNothingTwiceAndSendsWhatWasPending(
        _ backend: SyncBackend
    ) async throws {
        try await backend.withTwoDevices { a, b, open in
            a.createZone()
            for i in 1...3 { a.write("n\(i)", "note \(i)") }
            try await a.engine.sendChanges()
            try await b.engine.fetchChanges()
            #expect(b.notes.count == 3)

            // B restarts from what it persisted: nothing it fetched comes again.
            b.stop()
            b.start(try open().privateCloudDatabase)
            b.clearEvents()
            try await b.engine.fetchChanges()
            #expect(!b.events.contains("fetchedRecordZoneChanges"))
            #expect(!b.events.contains("fetchedDatabaseChanges"))

            // A adds a change, persists the state that holds it, and ends before sending.
            let database = try open().privateCloudDatabase
            a.write("n4", "note 4")
            try await eventually { pendingChanges(in: a.serialization, database: database).count == 1 }
            a.stop()
            a.start(try open().privateCloudDatabase)
            #expect(a.engine.state.pendingRecordZoneChanges == [.saveRecord(a.recordID("n4"))])
            a.clearEvents()
            try await a.engine.sendChanges()
            #expect(a.engine.state.pendingRecordZoneChanges.isEmpty)
            try await b.engine.fetchChanges()
            #expect(b.notes.count == 4)
            #expect(b.notes["n4"] == "note 4")
        }
    }
}
