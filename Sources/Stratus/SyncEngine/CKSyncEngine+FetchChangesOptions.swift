extension CKSyncEngine {
    /// The options of a fetch from the server.
    public struct FetchChangesOptions: Sendable, CustomStringConvertible {
        /// Which zones to fetch changes from.
        public var scope: CKSyncEngine.FetchChangesOptions.Scope
        /// The operation group of the underlying CloudKit operations.
        public var operationGroup: CKOperationGroup
        /// Zones whose changes are fetched first, in this order.
        public var prioritizedZoneIDs: [CKRecordZone.ID] = []

        /// Options that fetch changes from the zones in `scope`.
        public init(scope: CKSyncEngine.FetchChangesOptions.Scope = .all) {
            self.scope = scope
            self.operationGroup = CKOperationGroup()
        }

        /// A textual description of the options, for logs.
        public var description: String { "FetchChangesOptions(scope: \(scope))" }
    }
}
