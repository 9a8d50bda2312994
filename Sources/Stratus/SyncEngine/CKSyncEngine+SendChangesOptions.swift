extension CKSyncEngine {
    /// The options of a send to the server.
    public struct SendChangesOptions: Sendable, CustomStringConvertible {
        /// Which pending changes to send.
        public var scope: CKSyncEngine.SendChangesOptions.Scope
        /// The operation group of the underlying CloudKit operations.
        public var operationGroup: CKOperationGroup

        /// Options that send the pending changes in `scope`, with the underlying operations in
        /// `operationGroup` (a new group when `nil`).
        public init(scope: CKSyncEngine.SendChangesOptions.Scope = .all, operationGroup: CKOperationGroup? = nil) {
            self.scope = scope
            self.operationGroup = operationGroup ?? CKOperationGroup()
        }

        /// A textual description of the options, for logs.
        public var description: String { "SendChangesOptions(scope: \(scope))" }
    }
}
