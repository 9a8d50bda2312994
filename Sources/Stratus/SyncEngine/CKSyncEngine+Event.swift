extension CKSyncEngine {
    /// An event of a sync, which the engine gives its delegate's
    /// ``CKSyncEngineDelegate/handleEvent(_:syncEngine:)`` one at a time.
    ///
    /// A fetch posts `willFetchChanges`, `fetchedDatabaseChanges` (when zones changed),
    /// `stateUpdate`, then for each zone `willFetchRecordZoneChanges`, `fetchedRecordZoneChanges`
    /// and `stateUpdate` per batch, `didFetchRecordZoneChanges`, and last `didFetchChanges`. A
    /// send posts `willSendChanges`, `sentDatabaseChanges` and `stateUpdate` (when zones were
    /// pending), `sentRecordZoneChanges` and `stateUpdate` per batch, then `didSendChanges`.
    public enum Event: Sendable, CustomStringConvertible {
        /// The engine's state changed: persist the serialization.
        case stateUpdate(CKSyncEngine.Event.StateUpdate)
        /// The user signed in or out of their account.
        case accountChange(CKSyncEngine.Event.AccountChange)
        /// Zones changed or were deleted on the server.
        case fetchedDatabaseChanges(CKSyncEngine.Event.FetchedDatabaseChanges)
        /// Records changed or were deleted on the server.
        case fetchedRecordZoneChanges(CKSyncEngine.Event.FetchedRecordZoneChanges)
        /// The engine sent zone changes.
        case sentDatabaseChanges(CKSyncEngine.Event.SentDatabaseChanges)
        /// The engine sent a batch of record changes.
        case sentRecordZoneChanges(CKSyncEngine.Event.SentRecordZoneChanges)
        /// The engine is about to fetch changes.
        case willFetchChanges(CKSyncEngine.Event.WillFetchChanges)
        /// The engine is about to fetch the changes of a zone.
        case willFetchRecordZoneChanges(CKSyncEngine.Event.WillFetchRecordZoneChanges)
        /// The engine finished fetching the changes of a zone.
        case didFetchRecordZoneChanges(CKSyncEngine.Event.DidFetchRecordZoneChanges)
        /// The engine finished fetching changes.
        case didFetchChanges(CKSyncEngine.Event.DidFetchChanges)
        /// The engine is about to send changes.
        case willSendChanges(CKSyncEngine.Event.WillSendChanges)
        /// The engine finished sending changes.
        case didSendChanges(CKSyncEngine.Event.DidSendChanges)

        /// The event's name and a summary of its contents, for logs.
        public var description: String {
            switch self {
            case .stateUpdate: return "stateUpdate"
            case .accountChange: return "accountChange"
            case .fetchedDatabaseChanges(let e):
                return "fetchedDatabaseChanges(\(e.modifications.count) changed, \(e.deletions.count) deleted)"
            case .fetchedRecordZoneChanges(let e):
                return "fetchedRecordZoneChanges(\(e.modifications.count) changed, \(e.deletions.count) deleted)"
            case .sentDatabaseChanges(let e):
                return "sentDatabaseChanges(\(e.savedZones.count) saved, \(e.deletedZoneIDs.count) deleted, "
                    + "\(e.failedZoneSaves.count + e.failedZoneDeletes.count) failed)"
            case .sentRecordZoneChanges(let e):
                return "sentRecordZoneChanges(\(e.savedRecords.count) saved, \(e.deletedRecordIDs.count) deleted, "
                    + "\(e.failedRecordSaves.count + e.failedRecordDeletes.count) failed)"
            case .willFetchChanges: return "willFetchChanges"
            case .willFetchRecordZoneChanges(let e): return "willFetchRecordZoneChanges(\(e.zoneID.zoneName))"
            case .didFetchRecordZoneChanges(let e): return "didFetchRecordZoneChanges(\(e.zoneID.zoneName))"
            case .didFetchChanges: return "didFetchChanges"
            case .willSendChanges: return "willSendChanges"
            case .didSendChanges: return "didSendChanges"
            }
        }
    }
}
