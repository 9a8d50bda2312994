import Foundation
import StratusBackend

/// One batch of a database's zone changes.
package struct DatabaseChangesBatch: Sendable {
    package var changed: [CKRecordZone.ID]
    package var deleted: [(CKRecordZone.ID, DatabaseChangeEntry.Kind)]
    package var token: CKServerChangeToken
    package var moreComing: Bool

    /// A batch of a database's zone changes, up to `token`.
    package init(
        changed: [CKRecordZone.ID], deleted: [(CKRecordZone.ID, DatabaseChangeEntry.Kind)], token: CKServerChangeToken,
        moreComing: Bool
    ) {
        self.changed = changed
        self.deleted = deleted
        self.token = token
        self.moreComing = moreComing
    }
}

/// Database change fetching from the database change log: which zones were created, changed
/// or deleted since a token.
extension DatabaseContext {
    package func fetchDatabaseChanges(since token: CKServerChangeToken?, limit: Int) throws -> DatabaseChangesBatch {
        if scope == .public {
            throw CKError.make(.badDatabase, "database changes cannot be fetched in the public database")
        }
        return try engine.read { txn in
            let meta = try loadMeta(txn)
            var start: Int64 = 0
            if let token {
                let payload = try ChangeTokenPayload.decode(token, expected: .database, context: self)
                guard payload.horizon >= meta.horizon else {
                    throw CKError.make(
                        .changeTokenExpired,
                        "the database history before this change token was purged; fetch again from a nil token")
                }
                guard payload.horizon == meta.horizon, payload.position < meta.nextDatabasePosition else {
                    throw CKError.make(
                        .changeTokenExpired,
                        "the change token is newer than the database (was the store restored from an older copy?); fetch again from a nil token"
                    )
                }
                start = payload.position
            }
            let batch =
                limit > 0 ? min(limit, DatabaseContext.maximumChangesBatch) : DatabaseContext.defaultChangesBatch
            let entries = try txn.scan(keys.databaseChanges(after: start), limit: batch + 1)
            let moreComing = entries.count > batch
            var changed: [CKRecordZone.ID] = []
            var deleted: [(CKRecordZone.ID, DatabaseChangeEntry.Kind)] = []
            var last = start
            let prefixLength = keys.prefix.bytes.count + 1
            for pair in entries.prefix(batch) {
                var reader = OrderedKeyReader(pair.key, from: prefixLength)
                last = try reader.readInteger()
                let entry = try DatabaseChangeEntry(decoding: pair.value)
                let id = CKRecordZone.ID(zoneName: entry.zoneName, ownerName: entry.ownerName)
                switch entry.kind {
                case .changed: changed.append(id)
                default: if token != nil { deleted.append((id, entry.kind)) }
                }
            }
            let position = moreComing ? last : max(start, meta.nextDatabasePosition - 1)
            let newToken = ChangeTokenPayload(
                kind: .database, storeID: engine.storeID, containerNumber: containerNumber,
                scope: UInt8(scope.rawValue), zoneNumber: 0, position: position,
                horizon: meta.horizon
            ).token(macKey: engine.macKey)
            return DatabaseChangesBatch(changed: changed, deleted: deleted, token: newToken, moreComing: moreComing)
        }
    }
}
