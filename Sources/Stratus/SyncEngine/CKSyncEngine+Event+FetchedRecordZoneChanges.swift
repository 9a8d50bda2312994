extension CKSyncEngine.Event {
    /// Records that changed or were deleted on the server since the last fetch.
    public struct FetchedRecordZoneChanges: Sendable {
        /// The records that were created or changed, in their current state.
        public let modifications: [CKDatabase.RecordZoneChange.Modification]
        /// The records that were deleted.
        public let deletions: [CKDatabase.RecordZoneChange.Deletion]
    }
}
