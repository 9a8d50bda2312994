extension CKSyncEngine.Event {
    /// The engine is about to fetch changes from the server.
    public struct WillFetchChanges: Sendable {
        /// Why and how the engine fetches.
        public let context: CKSyncEngine.FetchChangesContext
    }
}
