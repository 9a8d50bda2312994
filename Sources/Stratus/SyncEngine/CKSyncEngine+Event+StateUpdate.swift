extension CKSyncEngine.Event {
    /// The engine's state changed; persist `stateSerialization` with the app's data.
    public struct StateUpdate: Sendable {
        /// The state to pass back in `CKSyncEngine.Configuration` at the next launch.
        public let stateSerialization: CKSyncEngine.State.Serialization
    }
}
