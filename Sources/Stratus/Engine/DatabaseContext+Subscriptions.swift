import Foundation
import StratusBackend

/// Subscriptions: save, delete, fetch. Each is stored under `DatabaseKeys.subscription(id)` as a
/// `SubscriptionRow`. In a user's stratusd namespace they fire into the user's notification log
/// (``fireSubscriptions(_:zonesChanged:_:)``, decision 0014.1) — a user's public-database query
/// subscriptions too, when saved in the user's namespace opened on the public database, which
/// indexes them in the public database. Saved in the public namespace itself (owner `""`) or in
/// an embedded container, a subscription is stored and fires nothing.
///
/// Which database accepts which subscription (CloudKit's headers, and analysis where marked):
/// - `CKQuerySubscription`: public and private; not the shared database (header:
///   "CKQuerySubscriptions are not supported in a sharedCloudDatabase") → `badDatabase`.
/// - `CKRecordZoneSubscription`: the zone must support change fetching (header), which only
///   custom zones of the private database do; not the shared database (header). In the public
///   database (no custom zones, and the default zone does not fetch changes) Stratus answers
///   `badDatabase`, as for zone operations there (analysis). In the private database, a
///   missing zone is `zoneNotFound` and the default zone `invalidArguments` (analysis).
/// - `CKDatabaseSubscription`: private and shared; the public database has no database change
///   tracking (`CKFetchDatabaseChangesOperation` fails there), so it is `badDatabase`
///   (analysis).
extension DatabaseContext {
    /// Why `row` cannot be saved in this database, if it cannot.
    private func subscriptionError(
        _ row: SubscriptionRow, _ txn: any BackendReadTransaction
    ) throws -> CKError? {
        if row.subscriptionID.isEmpty {
            return .make(.invalidArguments, "a subscription ID must not be empty")
        }
        switch row.kind {
        case .query(_, _, let zoneID, _):
            if scope == .shared {
                return .make(
                    .badDatabase,
                    "query subscriptions are not supported in the shared database (subscription '\(row.subscriptionID)')"
                )
            }
            if let zoneID, try loadZone(zoneID.zoneID, txn) == nil {
                return .make(.zoneNotFound, "Zone '\(zoneID.zoneName)' does not exist")
            }
        case .recordZone(let zoneID, _):
            if scope != .private {
                return .make(
                    .badDatabase,
                    "record zone subscriptions are not supported in the \(scope) database (subscription '\(row.subscriptionID)')"
                )
            }
            guard let zone = try loadZone(zoneID.zoneID, txn) else {
                return .make(.zoneNotFound, "Zone '\(zoneID.zoneName)' does not exist")
            }
            if !CKRecordZone.Capabilities(rawValue: UInt(zone.capabilities)).contains(.fetchChanges) {
                return .make(
                    .invalidArguments,
                    "zone '\(zoneID.zoneName)' does not support change fetching, which a record zone subscription needs (subscription '\(row.subscriptionID)')"
                )
            }
        case .database:
            if scope == .public {
                return .make(
                    .badDatabase,
                    "database subscriptions are not supported in the public database (subscription '\(row.subscriptionID)')"
                )
            }
        }
        return nil
    }

    /// Saves and deletes subscriptions in one transaction; every item gets its own result, in
    /// request order. Saving an existing subscription ID replaces that subscription; deleting
    /// one that does not exist fails with `unknownItem`. A saved subscription is returned as
    /// read back from its stored form.
    ///
    /// - Throws: `invalidArguments` when a subscription ID appears more than once in the
    ///   request, or a store failure as a `CKError`.
    /// `journal` runs last in the same transaction with the outcome (a long-lived operation's
    /// callbacks commit with the writes, decision 0006); it must only write to `txn`.
    package func modifySubscriptions(
        saving: [CKSubscription], deleting: [CKSubscription.ID],
        journal: ((SubscriptionModifyOutcome, any BackendWriteTransaction) throws -> Void)? = nil
    ) throws -> SubscriptionModifyOutcome {
        var seen = Set<CKSubscription.ID>()
        for id in saving.map(\.subscriptionID) + deleting where !seen.insert(id).inserted {
            throw CKError.make(
                .invalidArguments, "subscription '\(id)' appears more than once in one modify-subscriptions request")
        }
        // Snapshot every subscription (and check what needs no store) before the transaction.
        let rows: [Result<SubscriptionRow, CKError>] = saving.map { subscription in
            do throws(CKError) {
                return .success(try subscription.makeRow())
            } catch {
                return .failure(error)
            }
        }
        return try engine.write { txn in
            var saved: [(CKSubscription.ID, Result<CKSubscription, CKError>)] = []
            var deleted: [(CKSubscription.ID, Result<Void, CKError>)] = []
            var count = try subscriptionCount(after: deleting, txn)
            for (subscription, row) in zip(saving, rows) {
                let id = subscription.subscriptionID
                if let error = anonymousWriteError("subscription '\(id)'") {
                    saved.append((id, .failure(error)))
                    continue
                }
                switch row {
                case .failure(let error):
                    saved.append((id, .failure(error)))
                case .success(let row):
                    if let error = try subscriptionError(row, txn) {
                        saved.append((id, .failure(error)))
                        continue
                    }
                    let bytes = row.encoded()
                    if let error = try sizeError(id, bytes: bytes.count, count: &count, txn) {
                        saved.append((id, .failure(error)))
                        continue
                    }
                    try updatePublicIndex(id, new: row, txn)
                    try txn.set(keys.subscription(id), bytes)
                    saved.append((id, .success(CKSubscription.make(from: row))))
                }
            }
            for id in deleting {
                if let error = anonymousWriteError("subscription '\(id)'") {
                    deleted.append((id, .failure(error)))
                    continue
                }
                guard try txn.get(keys.subscription(id)) != nil else {
                    deleted.append((id, .failure(.make(.unknownItem, "Subscription '\(id)' does not exist"))))
                    continue
                }
                try updatePublicIndex(id, new: nil, txn)
                try txn.clear(keys.subscription(id))
                deleted.append((id, .success(())))
            }
            try journal?((saved, deleted), txn)
            return (saved, deleted)
        }
    }

    /// The most subscriptions one database holds (of one user: each user's subscriptions,
    /// public ones included, are kept in their own namespace). Every commit evaluates them.
    package static let maximumSubscriptions = 200
    /// The most bytes one stored subscription takes (its predicate and notification info
    /// included): each fired notification carries its notification info.
    package static let maximumSubscriptionBytes = 65_536

    /// How many subscriptions the database holds, less those of `deleting` it holds (at most
    /// one past ``maximumSubscriptions`` is counted).
    private func subscriptionCount(after deleting: [CKSubscription.ID], _ txn: any BackendReadTransaction) throws
        -> Int
    {
        var count = try txn.scan(keys.subscriptions, limit: Self.maximumSubscriptions + 1).count
        for id in deleting where try txn.get(keys.subscription(id)) != nil { count -= 1 }
        return count
    }

    /// Why a subscription of `bytes` stored bytes cannot be saved (too large, or a new one past
    /// ``maximumSubscriptions``: `count`, which a new one raises); `nil` when it can.
    private func sizeError(_ id: CKSubscription.ID, bytes: Int, count: inout Int, _ txn: any BackendReadTransaction)
        throws -> CKError?
    {
        if bytes > Self.maximumSubscriptionBytes {
            return .make(
                .limitExceeded,
                "subscription '\(id)' takes \(bytes) bytes stored; the limit is \(Self.maximumSubscriptionBytes) (shorten its predicate or notification info)"
            )
        }
        guard try txn.get(keys.subscription(id)) == nil else { return nil }
        if count >= Self.maximumSubscriptions {
            return .make(
                .limitExceeded,
                "subscription '\(id)' would be this database's subscription \(count + 1); the limit is \(Self.maximumSubscriptions)"
            )
        }
        count += 1
        return nil
    }

    /// Moves a user's public-database query subscription `id` in the public database's indexes
    /// (`41 (record type, n_U, id)`, or `42` when its predicate requires a value: decision
    /// 0014.8) from its stored row to `new`; nothing elsewhere.
    private func updatePublicIndex(_ id: String, new: SubscriptionRow?, _ txn: any BackendWriteTransaction) throws {
        guard let publicNumber else { return }
        let index = DatabaseKeys(containerNumber: publicNumber, scope: Int64(CKDatabase.Scope.public.rawValue))
        if let old = try txn.get(keys.subscription(id)) {
            try clearPublicIndexEntries(of: try SubscriptionRow(decoding: old), user: containerNumber, in: index, txn)
        }
        guard let new, case .query(let recordType, let predicate, _, _) = new.kind else { return }
        guard let key = PublicSubscriptionKey(predicate) else {
            try txn.set(index.publicSubscriptionIndex(recordType, user: containerNumber, id: id), [])
            return
        }
        try txn.set(index.keyedPublicSubscription(recordType, key, user: containerNumber, id: id), [])
        let mark = index.publicSubscriptionKeyMark(recordType, key.field)
        // Read first: once the mark exists, users subscribing at once write no common key.
        if try txn.get(mark) == nil { try txn.set(mark, []) }
    }

    /// Fetches subscriptions by ID (a missing one fails with `unknownItem`; an ID listed twice
    /// is answered once), or, for `nil`, every subscription of the database in ID order.
    package func fetchSubscriptions(_ ids: [CKSubscription.ID]?) throws -> [(
        CKSubscription.ID, Result<CKSubscription, CKError>
    )] {
        try engine.read { txn in
            if let ids {
                var seen = Set<CKSubscription.ID>()
                return try ids.filter { seen.insert($0).inserted }.map { id in
                    guard let bytes = try txn.get(keys.subscription(id)) else {
                        return (id, .failure(.make(.unknownItem, "Subscription '\(id)' does not exist")))
                    }
                    return (id, .success(CKSubscription.make(from: try SubscriptionRow(decoding: bytes))))
                }
            }
            var result: [(CKSubscription.ID, Result<CKSubscription, CKError>)] = []
            var range = keys.subscriptions
            while true {
                let page = try txn.scan(range, limit: 256)
                for pair in page {
                    let row = try SubscriptionRow(decoding: pair.value)
                    result.append((row.subscriptionID, .success(CKSubscription.make(from: row))))
                }
                guard let last = page.last, page.count == 256 else { break }
                range = KeyRange(from: last.key + [0], to: range.upperBound)
            }
            return result
        }
    }
}
