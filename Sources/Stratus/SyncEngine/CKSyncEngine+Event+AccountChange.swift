extension CKSyncEngine.Event {
    /// The user signed in or out of their account. Stratus's containers have one account that
    /// never changes, so the engine does not post this event.
    public struct AccountChange: Sendable {
        /// What changed.
        public enum ChangeType: Sendable {
            /// A user signed in.
            case signIn(currentUser: CKRecord.ID)
            /// The user signed out.
            case signOut(previousUser: CKRecord.ID)
            /// Another user signed in.
            case switchAccounts(previousUser: CKRecord.ID, currentUser: CKRecord.ID)
        }

        /// What changed.
        public let changeType: CKSyncEngine.Event.AccountChange.ChangeType
    }
}
