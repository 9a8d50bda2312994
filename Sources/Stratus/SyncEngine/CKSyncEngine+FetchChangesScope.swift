extension CKSyncEngine.FetchChangesOptions {
    /// The zones a fetch covers.
    public enum Scope: Hashable, Sendable {
        /// Every zone.
        case all
        /// Only these zones.
        case zoneIDs([CKRecordZone.ID])
        /// Every zone but these.
        case allExcluding([CKRecordZone.ID])

        /// Whether the scope covers `zoneID`.
        public func contains(_ zoneID: CKRecordZone.ID) -> Bool {
            switch self {
            case .all: return true
            case .zoneIDs(let zoneIDs): return zoneIDs.contains(zoneID)
            case .allExcluding(let zoneIDs): return !zoneIDs.contains(zoneID)
            }
        }
    }
}
