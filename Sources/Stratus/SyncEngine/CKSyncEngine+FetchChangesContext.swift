extension CKSyncEngine {
    /// Why and how the engine is fetching changes.
    public struct FetchChangesContext: Sendable {
        /// Why the engine is fetching.
        public let reason: CKSyncEngine.SyncReason
        /// The options of this fetch.
        public let options: CKSyncEngine.FetchChangesOptions
    }
}
