extension CKSyncEngine.Event {
    /// The engine finished fetching changes from the server.
    public struct DidFetchChanges: Sendable {
        /// Why and how the engine fetched.
        public let context: CKSyncEngine.FetchChangesContext
    }
}
