import Stratus

/// What the store holds in the devices' zone, read through a container of its own: note name →
/// text; `nil` when the zone does not exist.
func storeNotes(_ database: CKDatabase, zoneID: CKRecordZone.ID) async throws -> [String: String]? {
    guard try await database.allRecordZones().contains(where: { $0.zoneID == zoneID }) else { return nil }
    var notes: [String: String] = [:]
    var token: CKServerChangeToken?
    while true {
        let batch = try await database.recordZoneChanges(inZoneWith: zoneID, since: token)
        for (id, result) in batch.modificationResultsByID {
            notes[id.recordName] = try result.get().record["text"] as String?
        }
        for deletion in batch.deletions { notes[deletion.recordID.recordName] = nil }
        token = batch.changeToken
        if !batch.moreComing { return notes }
    }
}

/// The pending record changes a serialization holds, read through a throw-away engine.
func pendingChanges(
    in serialization: CKSyncEngine.State.Serialization?, database: CKDatabase
) -> [CKSyncEngine.PendingRecordZoneChange] {
    let device = Device("reader")
    var configuration = CKSyncEngine.Configuration(
        database: database, stateSerialization: serialization, delegate: device)
    configuration.automaticallySync = false
    return CKSyncEngine(configuration).state.pendingRecordZoneChanges
}

/// Waits, without a time limit of its own, until `condition` holds (the test run's own limit
/// ends a test that never gets there).
func eventually(_ condition: () async throws -> Bool) async throws {
    while try await !condition() {
        try await Task.sleep(for: .milliseconds(20))
    }
}
