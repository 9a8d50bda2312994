extension CKSyncEngine.Event {
    /// Zones that changed or were deleted on the server since the last fetch.
    public struct FetchedDatabaseChanges: Sendable {
        /// The zones that were created or changed.
        public let modifications: [CKDatabase.DatabaseChange.Modification]
        /// The zones that were deleted, with why.
        public let deletions: [CKDatabase.DatabaseChange.Deletion]
    }
}
