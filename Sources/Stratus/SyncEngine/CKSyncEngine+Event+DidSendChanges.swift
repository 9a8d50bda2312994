extension CKSyncEngine.Event {
    /// The engine finished sending changes to the server.
    public struct DidSendChanges: Sendable {
        /// Why and how the engine sent.
        public let context: CKSyncEngine.SendChangesContext
    }
}
