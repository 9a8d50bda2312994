extension CKSyncEngine.Event {
    /// The user signed in or out of their account. Stratus's engine compares the user the
    /// database's credentials name with the one its state was synced for, before its first
    /// sync: `signIn` on a first start, `switchAccounts` (after resetting the state, pending
    /// changes included) when a remote container's credentials name another user. It never
    /// posts `signOut`: a container always has a user (`Docs/SyncEngine.md`).
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
