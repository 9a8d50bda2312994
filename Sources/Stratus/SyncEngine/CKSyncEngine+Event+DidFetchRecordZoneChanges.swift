extension CKSyncEngine.Event {
    /// The engine finished fetching the changes of a zone.
    public struct DidFetchRecordZoneChanges: Sendable {
        /// The zone.
        public let zoneID: CKRecordZone.ID
        /// Why the fetch of the zone failed; `nil` when it succeeded.
        public let error: CKError?
    }
}
