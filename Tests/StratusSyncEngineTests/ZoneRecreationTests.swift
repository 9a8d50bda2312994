import Stratus
import Testing

/// A zone deleted on one device, and perhaps made again there, as another device fetches it:
/// what exists at the end of the database changes decides whether the zone is fetched.
@Suite struct ZoneRecreationTests {
    /// B deletes the zone, makes it again and saves r in it: A fetches the new zone from a
    /// `nil` token and receives r.
    @Test(arguments: SyncBackend.allCases)
    func aZoneDeletedAndMadeAgainIsFetchedFromTheStart(_ backend: SyncBackend) async throws {
        try await backend.withTwoDevices { a, b, _ in
            try await syncOneNote(a, b)

            b.deleteZone()
            try await b.engine.sendChanges()
            b.createZone()
            b.write("r", "in the new zone")
            try await b.engine.sendChanges()
            a.clearEvents()
            try await a.engine.fetchChanges()
            #expect(a.events.contains("fetchedDatabaseChanges"))
            #expect(a.events.contains("fetchedRecordZoneChanges"))
            #expect(a.notes == ["r": "in the new zone"])
            #expect(!a.engine.state.zoneIDsWithUnfetchedServerChanges.contains(a.zoneID))
        }
    }

    /// B deletes the zone: A is told of the deletion and does not fetch the zone.
    @Test(arguments: SyncBackend.allCases)
    func aZoneDeletedAndNotMadeAgainIsNotFetched(_ backend: SyncBackend) async throws {
        try await backend.withTwoDevices { a, b, _ in
            try await syncOneNote(a, b)

            b.deleteZone()
            try await b.engine.sendChanges()
            a.clearEvents()
            try await a.engine.fetchChanges()
            #expect(a.events.contains("fetchedDatabaseChanges"))
            #expect(!a.events.contains("willFetchRecordZoneChanges"))
            #expect(a.notes.isEmpty)
            #expect(!a.engine.state.zoneIDsWithUnfetchedServerChanges.contains(a.zoneID))
        }
    }

    /// B deletes the zone, makes it again with r and deletes it again: the last deletion wins,
    /// so A does not fetch the zone.
    @Test(arguments: SyncBackend.allCases)
    func aZoneDeletedMadeAgainAndDeletedAgainIsNotFetched(_ backend: SyncBackend) async throws {
        try await backend.withTwoDevices { a, b, _ in
            try await syncOneNote(a, b)

            b.deleteZone()
            try await b.engine.sendChanges()
            b.createZone()
            b.write("r", "in the new zone")
            try await b.engine.sendChanges()
            b.deleteZone()
            try await b.engine.sendChanges()
            a.clearEvents()
            try await a.engine.fetchChanges()
            #expect(a.events.contains("fetchedDatabaseChanges"))
            #expect(!a.events.contains("willFetchRecordZoneChanges"))
            #expect(a.notes.isEmpty)
            #expect(!a.engine.state.zoneIDsWithUnfetchedServerChanges.contains(a.zoneID))
        }
    }

    /// A makes the zone with one note and both devices fetch it, so each holds the zone's token.
    private func syncOneNote(_ a: Device, _ b: Device) async throws {
        a.createZone()
        a.write("n1", "one")
        try await a.engine.sendChanges()
        try await a.engine.fetchChanges()
        try await b.engine.fetchChanges()
        #expect(a.notes == ["n1": "one"])
        #expect(b.notes == ["n1": "one"])
    }
}
