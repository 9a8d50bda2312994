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
            try await b.sends([.delete, .remake])
            try await fetchAfresh(a)
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
            try await b.sends([.delete])
            try await fetchAfresh(a)
            expectTheZoneGone(a)
        }
    }

    /// B deletes the zone, makes it again with r and deletes it again: the last deletion wins,
    /// so A does not fetch the zone.
    @Test(arguments: SyncBackend.allCases)
    func aZoneDeletedMadeAgainAndDeletedAgainIsNotFetched(_ backend: SyncBackend) async throws {
        try await backend.withTwoDevices { a, b, _ in
            try await syncOneNote(a, b)
            try await b.sends([.delete, .remake, .delete])
            try await fetchAfresh(a)
            expectTheZoneGone(a)
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

    /// A fetches with its events cleared first, and is told of the database's changes.
    private func fetchAfresh(_ a: Device) async throws {
        a.clearEvents()
        try await a.engine.fetchChanges()
        #expect(a.events.contains("fetchedDatabaseChanges"))
    }

    /// A was told of the deletion and fetched nothing of the zone.
    private func expectTheZoneGone(_ a: Device) {
        #expect(!a.events.contains("willFetchRecordZoneChanges"))
        #expect(a.notes.isEmpty)
        #expect(!a.engine.state.zoneIDsWithUnfetchedServerChanges.contains(a.zoneID))
    }
}

/// What B does to the zone, each step sent on its own.
private enum ZoneStep {
    /// Deletes the zone.
    case delete
    /// Makes the zone again, with the note r.
    case remake
}

extension Device {
    /// Does `steps` to the zone, sending the changes after each.
    fileprivate func sends(_ steps: [ZoneStep]) async throws {
        for step in steps {
            switch step {
            case .delete: deleteZone()
            case .remake:
                createZone()
                write("r", "in the new zone")
            }
            try await engine.sendChanges()
        }
    }
}
