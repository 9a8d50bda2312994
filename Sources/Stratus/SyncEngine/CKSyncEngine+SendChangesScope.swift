extension CKSyncEngine.SendChangesOptions {
    /// The pending changes a send covers.
    public enum Scope: Hashable, Sendable {
        /// Changes in every zone.
        case all
        /// Changes in these zones.
        case zoneIDs([CKRecordZone.ID])
        /// Changes in every zone but these.
        case allExcluding([CKRecordZone.ID])
        /// Changes of these records.
        case recordIDs([CKRecord.ID])

        /// Whether the scope covers changes in `zoneID`.
        public func contains(_ zoneID: CKRecordZone.ID) -> Bool {
            switch self {
            case .all: return true
            case .zoneIDs(let zoneIDs): return zoneIDs.contains(zoneID)
            case .allExcluding(let zoneIDs): return !zoneIDs.contains(zoneID)
            case .recordIDs(let recordIDs): return recordIDs.contains { $0.zoneID == zoneID }
            }
        }

        /// Whether the scope covers changes of `recordID`.
        public func contains(_ recordID: CKRecord.ID) -> Bool {
            switch self {
            case .recordIDs(let recordIDs): return recordIDs.contains(recordID)
            default: return contains(recordID.zoneID)
            }
        }

        /// Whether the scope covers `pendingRecordZoneChange`.
        public func contains(_ pendingRecordZoneChange: CKSyncEngine.PendingRecordZoneChange) -> Bool {
            contains(pendingRecordZoneChange.recordID)
        }

        /// Whether the scope covers `pendingDatabaseChange`.
        func contains(_ pendingDatabaseChange: CKSyncEngine.PendingDatabaseChange) -> Bool {
            switch self {
            case .recordIDs: return false
            default: return contains(pendingDatabaseChange.zoneID)
            }
        }
    }
}
