extension CKSyncEngine {
    /// The attributes and behavior of a sync engine: its database, its last persisted state,
    /// its delegate, and whether it syncs by itself.
    public struct Configuration: Sendable {
        /// The database to sync.
        public var database: CKDatabase
        /// The state from the most recent ``CKSyncEngine/Event/stateUpdate(_:)`` event the
        /// delegate handled; `nil` the first time.
        public var stateSerialization: CKSyncEngine.State.Serialization?
        /// The object that provides the records to sync and handles the engine's events. The
        /// engine holds it weakly.
        public var delegate: any CKSyncEngineDelegate
        /// Whether the engine sends and fetches by itself: a send shortly after pending changes
        /// are added, a fetch when the database changes (`Docs/SyncEngine.md` gives the delays).
        /// `true` by default.
        public var automaticallySync: Bool = true
        /// The identifier of the database subscription the engine uses to learn of changes on
        /// the server; `nil` (the default) to use an existing `CKDatabaseSubscription` of the
        /// database or create one. Used on remote containers only: an embedded engine learns of
        /// changes from the store and creates no subscription (`Docs/SyncEngine.md`).
        public var subscriptionID: CKSubscription.ID?

        /// Creates a configuration for the specified database and serialized state.
        public init(
            database: CKDatabase, stateSerialization: CKSyncEngine.State.Serialization?,
            delegate: any CKSyncEngineDelegate
        ) {
            self.database = database
            self.stateSerialization = stateSerialization
            self.delegate = delegate
        }
    }
}
