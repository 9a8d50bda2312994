extension CKSyncEngine {
    /// An unsent record modification.
    public enum PendingRecordZoneChange: Hashable, Sendable, CustomStringConvertible {
        /// A pending save of a record to the server.
        case saveRecord(CKRecord.ID)
        /// A pending deletion of a record from the server.
        case deleteRecord(CKRecord.ID)

        /// A textual description of the change, for logs.
        public var description: String {
            switch self {
            case .saveRecord(let id): return "saveRecord(\(id.zoneID.zoneName)/\(id.recordName))"
            case .deleteRecord(let id): return "deleteRecord(\(id.zoneID.zoneName)/\(id.recordName))"
            }
        }

        /// The record the change is about.
        var recordID: CKRecord.ID {
            switch self {
            case .saveRecord(let id), .deleteRecord(let id): return id
            }
        }
    }
}
