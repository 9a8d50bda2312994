extension CKSyncEngine {
    /// An unsent zone modification.
    public enum PendingDatabaseChange: Hashable, Sendable, CustomStringConvertible {
        /// A pending save of a zone to the server.
        case saveZone(CKRecordZone)
        /// A pending deletion of a zone from the server.
        case deleteZone(CKRecordZone.ID)

        /// The zone the change is about.
        public var zoneID: CKRecordZone.ID {
            switch self {
            case .saveZone(let zone): return zone.zoneID
            case .deleteZone(let zoneID): return zoneID
            }
        }

        /// A textual description of the change, for logs.
        public var description: String {
            switch self {
            case .saveZone(let zone): return "saveZone(\(zone.zoneID.zoneName))"
            case .deleteZone(let zoneID): return "deleteZone(\(zoneID.zoneName))"
            }
        }
    }
}
