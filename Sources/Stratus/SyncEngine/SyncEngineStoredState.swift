/// What a sync engine's state serialization holds, in a form that does not depend on how
/// Stratus archives its objects: the database change token, each zone's change token, the
/// zones with changes not fetched yet, and the pending changes in the order they were added.
struct SyncEngineStoredState: Codable, Sendable, Equatable {
    /// A zone, by name and owner.
    struct Zone: Codable, Sendable, Hashable {
        var zoneName: String
        var ownerName: String

        init(_ zoneID: CKRecordZone.ID) {
            zoneName = zoneID.zoneName
            ownerName = zoneID.ownerName
        }

        var zoneID: CKRecordZone.ID { CKRecordZone.ID(zoneName: zoneName, ownerName: ownerName) }
    }

    /// A zone's change token.
    struct ZoneToken: Codable, Sendable, Equatable {
        var zone: Zone
        var token: CKServerChangeToken
    }

    /// A pending record change.
    struct RecordChange: Codable, Sendable, Hashable {
        var delete: Bool
        var recordName: String
        var zone: Zone

        init(_ change: CKSyncEngine.PendingRecordZoneChange) {
            if case .deleteRecord = change { delete = true } else { delete = false }
            recordName = change.recordID.recordName
            zone = Zone(change.recordID.zoneID)
        }

        var change: CKSyncEngine.PendingRecordZoneChange {
            let id = CKRecord.ID(recordName: recordName, zoneID: zone.zoneID)
            return delete ? .deleteRecord(id) : .saveRecord(id)
        }
    }

    /// A pending zone change (a saved zone is kept by its ID).
    struct DatabaseChange: Codable, Sendable, Hashable {
        var delete: Bool
        var zone: Zone

        init(_ change: CKSyncEngine.PendingDatabaseChange) {
            if case .deleteZone = change { delete = true } else { delete = false }
            zone = Zone(change.zoneID)
        }

        var change: CKSyncEngine.PendingDatabaseChange {
            delete ? .deleteZone(zone.zoneID) : .saveZone(CKRecordZone(zoneID: zone.zoneID))
        }
    }

    /// The format of this serialization.
    var version = 1
    var databaseToken: CKServerChangeToken?
    var zoneTokens: [ZoneToken] = []
    var zonesWithUnfetchedChanges: [Zone] = []
    var pendingRecordZoneChanges: [RecordChange] = []
    var pendingDatabaseChanges: [DatabaseChange] = []
    var hasPendingUntrackedChanges = false
    /// The record name of the user the state was synced for (`nil` before the first sync, and
    /// in states written before it was kept).
    var userRecordName: String?
    /// How many times each pending record change was added in this process (not persisted):
    /// a change added again while it was being sent stays pending.
    var additions: [RecordChange: Int] = [:]

    private enum CodingKeys: String, CodingKey {
        case version, databaseToken, zoneTokens, zonesWithUnfetchedChanges, pendingRecordZoneChanges
        case pendingDatabaseChanges, hasPendingUntrackedChanges, userRecordName
    }
}
