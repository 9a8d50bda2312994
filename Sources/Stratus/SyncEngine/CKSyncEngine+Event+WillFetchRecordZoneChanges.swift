extension CKSyncEngine.Event {
    /// The engine is about to fetch the changes of a zone.
    public struct WillFetchRecordZoneChanges: Sendable {
        /// The zone.
        public let zoneID: CKRecordZone.ID
    }
}
