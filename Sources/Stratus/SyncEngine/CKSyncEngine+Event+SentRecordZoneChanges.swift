extension CKSyncEngine.Event {
    /// The outcome of sending one batch of record changes. Keep the system fields of saved
    /// records for the next save; a failed save of `serverRecordChanged` carries the server's
    /// record in its error (`error.serverRecord`) to merge with and save again.
    public struct SentRecordZoneChanges: Sendable {
        /// A record the server did not save, and why.
        public struct FailedRecordSave: Sendable {
            /// The record as the app sent it.
            public let record: CKRecord
            /// Why it was not saved.
            public let error: CKError
        }

        /// The records saved, with their new system fields.
        public let savedRecords: [CKRecord]
        /// The records not saved.
        public let failedRecordSaves: [CKSyncEngine.Event.SentRecordZoneChanges.FailedRecordSave]
        /// The IDs of the records deleted.
        public let deletedRecordIDs: [CKRecord.ID]
        /// The records not deleted, and why.
        public let failedRecordDeletes: [CKRecord.ID: CKError]
    }
}
