import Stratus
import Testing

/// The engine's event order and bookkeeping, as decision 0017 states them: tokens advance only
/// after the app received the changes, pending changes go only once the server settled them,
/// an expired token makes the engine fetch again from nil.
@Suite struct BookkeepingTests {
    @Test(arguments: SyncBackend.allCases)
    func eventsComeInApplesOrderWithTheStateAfterEachDelivery(_ backend: SyncBackend) async throws {
        try await backend.withTwoDevices { a, b, open in
            a.createZone()
            a.write("n1", "one")
            a.clearEvents()
            try await a.engine.sendChanges()
            // A first start signs in before the first sync, with the state after it.
            #expect(Array(a.events.prefix(2)) == ["accountChange", "stateUpdate"])
            // The state update for the changes added above comes before the send or after it.
            let send = Array(a.events.dropFirst(2).drop { $0 == "stateUpdate" })
            let end = try #require(send.firstIndex(of: "didSendChanges"))
            #expect(
                Array(send[...end]) == [
                    "willSendChanges", "sentDatabaseChanges", "stateUpdate", "sentRecordZoneChanges", "stateUpdate",
                    "didSendChanges",
                ])
            try await b.engine.fetchChanges()
            #expect(
                b.events == [
                    "accountChange", "stateUpdate", "willFetchChanges", "fetchedDatabaseChanges", "stateUpdate",
                    "willFetchRecordZoneChanges",
                    "fetchedRecordZoneChanges", "stateUpdate", "didFetchRecordZoneChanges", "didFetchChanges",
                ])
        }
    }

    @Test(arguments: SyncBackend.allCases)
    func aStateNotPersistedAfterAFetchMeansTheChangesComeAgain(_ backend: SyncBackend) async throws {
        try await backend.withTwoDevices { a, b, open in
            a.createZone()
            a.write("n1", "one")
            try await a.engine.sendChanges()

            // B receives the changes but "crashes" before persisting the state that follows.
            b.persistStateUpdates(false)
            try await b.engine.fetchChanges()
            #expect(b.notes == ["n1": "one"])
            b.stop()
            b.persistStateUpdates(true)
            b.start(try open().privateCloudDatabase)
            b.clearEvents()
            try await b.engine.fetchChanges()
            #expect(b.events.contains("fetchedRecordZoneChanges"))
            #expect(b.notes == ["n1": "one"])

            // Persisted this time: nothing comes a third time.
            b.stop()
            b.start(try open().privateCloudDatabase)
            b.clearEvents()
            try await b.engine.fetchChanges()
            #expect(!b.events.contains("fetchedRecordZoneChanges"))
        }
    }

    @Test(arguments: SyncBackend.allCases)
    func pendingChangesGoOnlyOnceTheServerSettledThem(_ backend: SyncBackend) async throws {
        try await backend.withStore { open in
            let a = Device("A")
            a.start(try open().privateCloudDatabase)
            a.createZone()
            a.write("n1", "one")
            try await a.engine.sendChanges()
            // Pending while the batch was asked for, gone when the outcome was posted.
            #expect(a.pendingAtBatchRequests.first == [.saveRecord(a.recordID("n1"))])
            #expect(a.pendingAtSentEvents.first == [])
            #expect(a.engine.state.pendingDatabaseChanges.isEmpty)

            // An edit made while its record is being sent stays pending, and goes too.
            a.editAfterNextBatch("n1", "edited during the send")
            a.write("n1", "before the send")
            try await a.engine.sendChanges()
            #expect(a.engine.state.pendingRecordZoneChanges.isEmpty)
            #expect(
                try await storeNotes(try open().privateCloudDatabase, zoneID: a.zoneID)?["n1"]
                    == "edited during the send")

            // A send with nothing pending posts nothing (the state updates that follow the
            // additions above may still arrive).
            a.clearEvents()
            try await a.engine.sendChanges()
            #expect(a.events.allSatisfy { $0 == "stateUpdate" })

            // A save into a zone that does not exist fails for good: reported, and no longer
            // pending (the app decides whether to create the zone and add it again).
            let other = Device("B")
            other.start(try open().privateCloudDatabase)
            let orphan = CKRecord.ID(recordName: "n", zoneID: CKRecordZone.ID(zoneName: "Missing"))
            other.engine.state.add(pendingRecordZoneChanges: [.deleteRecord(orphan)])
            other.write("n2", "two")
            try await other.engine.sendChanges()
            #expect(other.engine.state.pendingRecordZoneChanges.isEmpty)
            #expect(other.events.contains("sentRecordZoneChanges"))
        }
    }

    @Test(arguments: SyncBackend.allCases)
    func anExpiredTokenMakesTheEngineFetchTheZoneAgainFromNil(_ backend: SyncBackend) async throws {
        try await backend.withTwoDevices { a, b, open in
            a.createZone()
            a.write("n1", "one")
            a.write("n2", "two")
            try await a.engine.sendChanges()
            try await b.engine.fetchChanges()

            a.write("n3", "three")
            a.delete("n1")
            try await a.engine.sendChanges()
            try open().privateCloudDatabase.purgeChangeHistory(in: a.zoneID)
            b.clearEvents()
            try await b.engine.fetchChanges()
            #expect(b.events.contains("fetchedRecordZoneChanges"))
            // From nil the zone's deletions are not reported; the app reconciles with what the
            // full fetch brought (decision 0003): n2 and n3 are there.
            #expect(b.notes["n2"] == "two")
            #expect(b.notes["n3"] == "three")
        }
    }

    @Test(arguments: SyncBackend.allCases)
    func sendsHoldAtMost400ItemsAndAbout2MBEach(_ backend: SyncBackend) async throws {
        try await backend.withTwoDevices { a, b, open in
            a.createZone()
            for i in 0..<450 { a.write("small\(i)", "note \(i)") }
            a.clearEvents()
            try await a.engine.sendChanges()
            #expect(a.events.filter { $0 == "sentRecordZoneChanges" }.count == 2)

            // Ten notes of 300 KB: 3 MB, more than one request carries.
            for i in 0..<10 { a.write("large\(i)", String(repeating: "x", count: 300_000)) }
            a.clearEvents()
            try await a.engine.sendChanges()
            #expect(a.events.filter { $0 == "sentRecordZoneChanges" }.count == 2)
            #expect(a.engine.state.pendingRecordZoneChanges.isEmpty)
            try await b.engine.fetchChanges()
            #expect(b.notes.count == 460)
        }
    }
}
