import Synchronization

extension CKSyncEngine {
    /// The engine's state: the pending changes the app controls, and the change tokens and
    /// zones to fetch that the engine keeps. Safe to use from any thread.
    public final class State: Sendable, CustomStringConvertible {
        private let stored: Mutex<SyncEngineStoredState>
        private let onPendingChange = Mutex<(@Sendable (_ added: Bool) -> Void)?>(nil)

        init(_ serialization: Serialization?) {
            stored = Mutex(serialization?.stored ?? SyncEngineStoredState())
        }

        /// The record changes not yet sent, in the order they were added.
        public var pendingRecordZoneChanges: [CKSyncEngine.PendingRecordZoneChange] {
            stored.withLock { $0.pendingRecordZoneChanges.map(\.change) }
        }

        /// The zone changes not yet sent, in the order they were added.
        public var pendingDatabaseChanges: [CKSyncEngine.PendingDatabaseChange] {
            stored.withLock { $0.pendingDatabaseChanges.map(\.change) }
        }

        /// Whether the app has changes it tracks itself; the engine then asks the delegate for
        /// a batch even with no pending record changes. Changing it posts the state; setting
        /// it to `true` schedules a send (automatic sync).
        public var hasPendingUntrackedChanges: Bool {
            get { stored.withLock { $0.hasPendingUntrackedChanges } }
            set {
                let changed = stored.withLock { state in
                    defer { state.hasPendingUntrackedChanges = newValue }
                    return state.hasPendingUntrackedChanges != newValue
                }
                if newValue || changed { pendingChanged(added: newValue) }
            }
        }

        /// The zones the server has changes in that the engine has not fetched yet.
        public var zoneIDsWithUnfetchedServerChanges: [CKRecordZone.ID] {
            stored.withLock { $0.zonesWithUnfetchedChanges.map(\.zoneID) }
        }

        /// Adds record changes to send. A save replaces a pending deletion of the same record
        /// and a deletion a pending save; a change already pending is not added twice.
        public func add(pendingRecordZoneChanges: [CKSyncEngine.PendingRecordZoneChange]) {
            stored.withLock { state in
                for change in pendingRecordZoneChanges.map(SyncEngineStoredState.RecordChange.init) {
                    state.pendingRecordZoneChanges.removeAll {
                        $0.recordName == change.recordName && $0.zone == change.zone
                    }
                    state.pendingRecordZoneChanges.append(change)
                    state.additions[change, default: 0] += 1
                }
            }
            pendingChanged(added: true)
        }

        /// Removes record changes, sent or not; the state is posted when one was pending.
        public func remove(pendingRecordZoneChanges: [CKSyncEngine.PendingRecordZoneChange]) {
            let removed = Set(pendingRecordZoneChanges.map(SyncEngineStoredState.RecordChange.init))
            let changed = stored.withLock { state in
                let count = state.pendingRecordZoneChanges.count
                state.pendingRecordZoneChanges.removeAll { removed.contains($0) }
                return state.pendingRecordZoneChanges.count != count
            }
            if changed { pendingChanged(added: false) }
        }

        /// Adds zone changes to send; a zone's save replaces its pending deletion and the other
        /// way round.
        public func add(pendingDatabaseChanges: [CKSyncEngine.PendingDatabaseChange]) {
            stored.withLock { state in
                for change in pendingDatabaseChanges.map(SyncEngineStoredState.DatabaseChange.init) {
                    state.pendingDatabaseChanges.removeAll { $0.zone == change.zone }
                    state.pendingDatabaseChanges.append(change)
                }
            }
            pendingChanged(added: true)
        }

        /// Removes zone changes, sent or not; the state is posted when one was pending.
        public func remove(pendingDatabaseChanges: [CKSyncEngine.PendingDatabaseChange]) {
            if removeDatabaseChanges(pendingDatabaseChanges) { pendingChanged(added: false) }
        }

        /// A short description, for logs.
        public var description: String {
            stored.withLock {
                "CKSyncEngine.State(pendingRecordZoneChanges: \($0.pendingRecordZoneChanges.count), "
                    + "pendingDatabaseChanges: \($0.pendingDatabaseChanges.count), "
                    + "zonesWithUnfetchedChanges: \($0.zonesWithUnfetchedChanges.count))"
            }
        }

        // MARK: The engine's bookkeeping

        /// What to persist now.
        var serialization: Serialization { Serialization(stored.withLock { $0 }) }

        /// How many times each pending record change was added so far.
        var additionCounts: [SyncEngineStoredState.RecordChange: Int] { stored.withLock { $0.additions } }

        /// Removes sent changes, except those added again since `counts` were taken.
        func removeSent(
            _ changes: [CKSyncEngine.PendingRecordZoneChange],
            unchangedSince counts: [SyncEngineStoredState.RecordChange: Int]
        ) {
            let sent = Set(changes.map(SyncEngineStoredState.RecordChange.init))
            stored.withLock { state in
                state.pendingRecordZoneChanges.removeAll {
                    sent.contains($0) && state.additions[$0, default: 0] == counts[$0, default: 0]
                }
            }
        }

        /// Removes sent zone changes; the send posts the state itself.
        func removeSent(_ changes: [CKSyncEngine.PendingDatabaseChange]) {
            removeDatabaseChanges(changes)
        }

        /// Removes `changes` from the pending zone changes; returns whether one was pending.
        @discardableResult
        private func removeDatabaseChanges(_ changes: [CKSyncEngine.PendingDatabaseChange]) -> Bool {
            let removed = Set(changes.map(SyncEngineStoredState.DatabaseChange.init))
            return stored.withLock { state in
                let count = state.pendingDatabaseChanges.count
                state.pendingDatabaseChanges.removeAll { removed.contains($0) }
                return state.pendingDatabaseChanges.count != count
            }
        }

        /// Sets what is told when the app changes the pending changes — `added` when it added
        /// some (or set ``hasPendingUntrackedChanges``), `false` when it removed some — so the
        /// engine posts the state and, for additions, schedules a send (automatic sync).
        func observePendingChanges(_ observer: (@Sendable (_ added: Bool) -> Void)?) {
            onPendingChange.withLock { $0 = observer }
        }

        private func pendingChanged(added: Bool) {
            onPendingChange.withLock { $0 }?(added)
        }

        /// Makes `userRecordName` the state's user; returns the account change to post: a sign-in
        /// when no user was remembered, a switch — after dropping the previous user's tokens,
        /// zones to fetch and pending changes — when another one was; `nil` for the same user.
        func adoptUser(_ userRecordName: String) -> CKSyncEngine.Event.AccountChange.ChangeType? {
            stored.withLock { state in
                guard let previous = state.userRecordName else {
                    state.userRecordName = userRecordName
                    return .signIn(currentUser: CKRecord.ID(recordName: userRecordName))
                }
                guard previous != userRecordName else { return nil }
                state = SyncEngineStoredState()
                state.userRecordName = userRecordName
                return .switchAccounts(
                    previousUser: CKRecord.ID(recordName: previous),
                    currentUser: CKRecord.ID(recordName: userRecordName))
            }
        }

        /// The database change token the next fetch continues from.
        var databaseToken: CKServerChangeToken? {
            get { stored.withLock { $0.databaseToken } }
            set { stored.withLock { $0.databaseToken = newValue } }
        }

        /// The change token the next fetch of `zoneID` continues from.
        func zoneToken(_ zoneID: CKRecordZone.ID) -> CKServerChangeToken? {
            let zone = SyncEngineStoredState.Zone(zoneID)
            return stored.withLock { $0.zoneTokens.first { $0.zone == zone }?.token }
        }

        /// Sets, or with `nil` forgets, the change token of `zoneID`.
        func setZoneToken(_ token: CKServerChangeToken?, for zoneID: CKRecordZone.ID) {
            let zone = SyncEngineStoredState.Zone(zoneID)
            stored.withLock { state in
                state.zoneTokens.removeAll { $0.zone == zone }
                if let token { state.zoneTokens.append(.init(zone: zone, token: token)) }
            }
        }

        /// Notes that the server has changes in `zoneIDs` to fetch.
        func markUnfetched(_ zoneIDs: [CKRecordZone.ID]) {
            stored.withLock { state in
                for zone in zoneIDs.map(SyncEngineStoredState.Zone.init)
                where !state.zonesWithUnfetchedChanges.contains(zone) {
                    state.zonesWithUnfetchedChanges.append(zone)
                }
            }
        }

        /// Notes that `zoneID`'s changes were fetched.
        func markFetched(_ zoneID: CKRecordZone.ID) {
            let zone = SyncEngineStoredState.Zone(zoneID)
            stored.withLock { $0.zonesWithUnfetchedChanges.removeAll { $0 == zone } }
        }

        /// Forgets a deleted zone: its token and its unfetched changes.
        func forgetZone(_ zoneID: CKRecordZone.ID) {
            setZoneToken(nil, for: zoneID)
            markFetched(zoneID)
        }
    }
}
