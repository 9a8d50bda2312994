extension CKSyncEngine.Event {
    /// The engine is about to send changes to the server.
    public struct WillSendChanges: Sendable {
        /// Why and how the engine sends.
        public let context: CKSyncEngine.SendChangesContext
    }
}
