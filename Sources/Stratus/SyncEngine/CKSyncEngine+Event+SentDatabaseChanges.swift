extension CKSyncEngine.Event {
    /// The outcome of sending pending zone changes.
    public struct SentDatabaseChanges: Sendable {
        /// A zone the server did not save, and why.
        public struct FailedZoneSave: Sendable {
            /// The zone.
            public let zone: CKRecordZone
            /// Why it was not saved.
            public let error: CKError
        }

        /// The zones saved.
        public let savedZones: [CKRecordZone]
        /// The zones not saved.
        public let failedZoneSaves: [CKSyncEngine.Event.SentDatabaseChanges.FailedZoneSave]
        /// The IDs of the zones deleted.
        public let deletedZoneIDs: [CKRecordZone.ID]
        /// The zones not deleted, and why.
        public let failedZoneDeletes: [CKRecordZone.ID: CKError]
    }
}
