extension CKSyncEngine {
    /// Compares the user the database's credentials name with the user the state was synced
    /// for, once per engine (again after a failed look), before its first fetch or send; posts
    /// `accountChange` when they differ (decision 0017.9):
    /// - no user remembered (a first start, or a state from before users were kept):
    ///   `signIn(currentUser:)`, keeping the state;
    /// - another user: `switchAccounts(previousUser:currentUser:)`, after resetting the state
    ///   as Apple's engine does — tokens, zones to fetch and pending changes dropped.
    ///
    /// Runs inside the engine's gate.
    func checkAccount() async throws {
        guard !accountChecked.load(ordering: .sequentiallyConsistent) else { return }
        let database = database
        let found = await SyncEngineOffPool.run { Result { try database.service().userRecordName } }
        guard case .success(let current) = found else { return }
        accountChecked.store(true, ordering: .sequentiallyConsistent)
        guard let change = state.adoptUser(current) else { return }
        await post(.accountChange(.init(changeType: change)))
        await postStateUpdate()
    }
}
