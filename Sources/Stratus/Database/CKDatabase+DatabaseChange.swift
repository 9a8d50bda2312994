extension CKDatabase {
    /// What `databaseChanges(since:resultsLimit:)` reports.
    public enum DatabaseChange {
        /// A zone that was created or changed, or whose records changed.
        public struct Modification: Sendable {
            /// The zone.
            public let zoneID: CKRecordZone.ID
        }

        /// A zone that was deleted.
        public struct Deletion: Sendable {
            /// Why a zone was deleted.
            public enum Reason: Sendable, Hashable {
                /// Deleted by an app.
                case deleted
                /// Purged by the user; wipe local data and do not upload it again.
                case purged
                /// Deleted by an encrypted-data reset; upload local data again.
                case encryptedDataReset
            }
            /// The zone.
            public let zoneID: CKRecordZone.ID
            /// Why it was deleted.
            public let reason: Reason
            /// Whether the user purged the zone (deprecated in CloudKit: use `reason`).
            public var purged: Bool { reason == .purged }
        }
    }

    /// What `recordZoneChanges(inZoneWith:since:desiredKeys:resultsLimit:)` reports.
    public enum RecordZoneChange {
        /// A record that changed, in its current state.
        public struct Modification: Sendable {
            /// The record.
            public let record: CKRecord
        }

        /// A record that was deleted.
        public struct Deletion: Sendable {
            /// The deleted record's ID.
            public let recordID: CKRecord.ID
            /// The deleted record's type.
            public let recordType: CKRecord.RecordType
        }
    }
}
