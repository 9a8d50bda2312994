extension CKSyncEngine {
    /// Why and how the engine is sending changes.
    public struct SendChangesContext: Sendable {
        /// Why the engine is sending.
        public let reason: CKSyncEngine.SyncReason
        /// The options of this send.
        public let options: CKSyncEngine.SendChangesOptions
    }
}
