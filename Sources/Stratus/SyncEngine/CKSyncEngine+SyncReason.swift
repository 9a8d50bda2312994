extension CKSyncEngine {
    /// Why the engine is fetching or sending changes.
    public enum SyncReason: Hashable, Sendable {
        /// The engine scheduled the sync itself (automatic sync).
        case scheduled
        /// The app called `fetchChanges(_:)` or `sendChanges(_:)`.
        case manual
    }
}
