import Foundation
import StratusBackend
import StratusPredicate

/// A record's state before and after a commit: what subscriptions are judged on (decision
/// 0014.1). `before` is `nil` for a new record, `after` for a deleted one.
struct RecordChange {
    let zoneID: CKRecordZone.ID
    let recordName: String
    let before: StoredRecord?
    let after: StoredRecord?

    var recordType: String { after?.recordType ?? before?.recordType ?? "" }
}

/// Subscriptions fire inside the committing transaction (decision 0014.1): the subscriptions
/// of the database written are judged against the commit's changes and their entries appended
/// to the owner's notification log, so a committed change always has its notifications and an
/// aborted or re-run body has none twice. A user's stratusd namespace fires its own
/// subscriptions; a namespace's public database fires its users' query subscriptions (stored in
/// each user's namespace, indexed by record type); embedded containers keep no log.
extension DatabaseContext {
    /// Fires this database's subscriptions for `changes` (and, for `zonesChanged`, its database
    /// subscriptions without a record type) in `txn`; returns the logs appended to.
    func fireSubscriptions(
        _ changes: [RecordChange], zonesChanged: Bool = false, _ txn: any BackendWriteTransaction,
        preloaded: PreloadedRows? = nil
    ) throws -> [Int64] {
        guard firesSubscriptions, !changes.isEmpty || zonesChanged else { return [] }
        if namespaceOwner == "" {
            return scope == .public ? try firePublicSubscriptions(changes, txn, preloaded) : []
        }
        let now = Date()
        var entries: [NotificationEntry] = []
        for row in try loadSubscriptionRows(txn, preloaded) {
            let fired = subscriptionEntries(for: row, changes, zonesChanged: zonesChanged, now: now)
            guard !fired.isEmpty else { continue }
            entries += fired
            if case .query(_, _, _, let options) = row.kind,
                CKQuerySubscription.Options(rawValue: options).contains(.firesOnce)
            {
                try txn.clear(keys.subscription(row.subscriptionID))
            }
        }
        guard !entries.isEmpty else { return [] }
        var budget = NotificationLog.maximumAppendBytes
        try NotificationLog.append(
            entries, to: containerNumber, maximumEntries: engine.notificationLogLimit, budget: &budget, txn)
        return [containerNumber]
    }

    /// The scans ``fireSubscriptions(_:zonesChanged:_:preloaded:)`` starts with when the commit
    /// writes records of `recordTypes` (or only zones): read ahead with a write's first reads
    /// (``PreloadedRows``), they cost no round trip of their own.
    func subscriptionScans(recordTypes: [String]) -> [ScanRequest] {
        guard firesSubscriptions else { return [] }
        if namespaceOwner == "" {
            guard scope == .public else { return [] }
            return recordTypes.flatMap {
                [
                    ScanRequest(keys.publicSubscriptionIndex($0), limit: Self.subscriptionPage),
                    ScanRequest(keys.publicSubscriptionKeyMarks($0), limit: Self.subscriptionPage),
                ]
            }
        }
        return [ScanRequest(keys.subscriptions, limit: Self.subscriptionPage)]
    }

    /// Pairs read per scan of subscriptions.
    static let subscriptionPage = 256

    /// Every subscription of this database.
    private func loadSubscriptionRows(
        _ txn: any BackendReadTransaction, _ preloaded: PreloadedRows?
    ) throws -> [SubscriptionRow] {
        try scanAll(keys.subscriptions, txn, preloaded).map { try SubscriptionRow(decoding: $0.value) }
    }

    /// Every pair in `range`, read in pages (the first one preloaded, when it was).
    func scanAll(
        _ range: KeyRange, _ txn: any BackendReadTransaction, _ preloaded: PreloadedRows?
    ) throws -> [KeyValuePair] {
        var pairs: [KeyValuePair] = []
        var range = range
        var first = preloaded?.takeScan(range, limit: Self.subscriptionPage)
        while true {
            let page = try first ?? txn.scan(range, limit: Self.subscriptionPage)
            first = nil
            pairs += page
            guard let last = page.last, page.count == Self.subscriptionPage else { return pairs }
            range = KeyRange(from: last.key + [0], to: range.upperBound)
        }
    }

    /// The entries `row` makes for this commit.
    func subscriptionEntries(
        for row: SubscriptionRow, _ changes: [RecordChange], zonesChanged: Bool, now: Date
    ) -> [NotificationEntry] {
        let time = now.timeIntervalSinceReferenceDate
        func entry(_ kind: NotificationEntry.Kind) -> NotificationEntry {
            NotificationEntry(
                subscriptionID: row.subscriptionID, kind: kind, databaseScope: scope.rawValue, time: time,
                info: row.notificationInfo)
        }
        switch row.kind {
        case .query(let recordType, let predicate, let zone, let options):
            return queryEntries(
                row, recordType: recordType, predicate: predicate, zone: zone,
                options: CKQuerySubscription.Options(rawValue: options), changes, now: now, make: entry)
        case .recordZone(let zone, let recordType):
            let fires = changes.contains {
                $0.zoneID.zoneName == zone.zoneName && (recordType == nil || $0.recordType == recordType)
            }
            guard fires else { return [] }
            var result = entry(.recordZone)
            result.zoneName = zone.zoneName
            result.zoneOwner = zone.ownerName
            return [result]
        case .database(let recordType):
            let fires =
                (zonesChanged && recordType == nil)
                || changes.contains { recordType == nil || $0.recordType == recordType }
            return fires ? [entry(.database)] : []
        }
    }

    /// One entry per record the query subscription fires for: *create* when a new record
    /// matches, *update* when an existing record matches after the change, *delete* when the
    /// deleted record matched before. A `firesOnce` subscription fires for the first only.
    private func queryEntries(
        _ row: SubscriptionRow, recordType: String, predicate: StoredPredicate, zone: SubscriptionRow.ZoneName?,
        options: CKQuerySubscription.Options, _ changes: [RecordChange], now: Date,
        make: (NotificationEntry.Kind) -> NotificationEntry
    ) -> [NotificationEntry] {
        // The record type first: parsing the predicate is the larger cost, and most commits
        // touch no record of most subscriptions' types.
        guard changes.contains(where: { $0.recordType == recordType }),
            let expression = predicate.expression
        else { return [] }
        func matches(_ record: StoredRecord?, _ change: RecordChange) -> Bool {
            guard let record else { return false }
            let subject = StoredRecordSubject(record: record, name: change.recordName, zoneID: change.zoneID)
            return (try? expression.evaluateStrictly(subject, now: now)) ?? false
        }
        var result: [NotificationEntry] = []
        for change in changes where change.recordType == recordType {
            if let zone, zone.zoneName != change.zoneID.zoneName { continue }
            let reason: UInt8
            if change.after == nil {
                guard options.contains(.firesOnRecordDeletion), matches(change.before, change) else { continue }
                reason = 3
            } else if change.before == nil {
                guard options.contains(.firesOnRecordCreation), matches(change.after, change) else { continue }
                reason = 1
            } else {
                guard options.contains(.firesOnRecordUpdate), matches(change.after, change) else { continue }
                reason = 2
            }
            var entry = make(.query)
            entry.reason = reason
            entry.recordName = change.recordName
            entry.zoneName = change.zoneID.zoneName
            entry.zoneOwner = change.zoneID.ownerName
            if let keys = row.notificationInfo?.desiredKeys, let record = change.after ?? change.before {
                for key in keys {
                    if let value = record.fields[key]?.payloadValue { entry.recordFields[key] = value }
                }
            }
            result.append(entry)
            if options.contains(.firesOnce) { break }
        }
        return result
    }
}

extension FieldValue {
    /// The value as a payload's `af` carries it: strings (truncated), numbers, dates as
    /// milliseconds since 1970, references as their record name; `nil` for the rest.
    var payloadValue: NotificationPayloadValue? {
        switch self {
        case .string(let string): return .string(NotificationEntry.truncated(string))
        case .integer(let int, _): return .integer(int)
        case .double(let double, _): return .double(double)
        case .date(let date):
            // Saturated: a client may store any date, and a conversion beyond Int64 would trap.
            let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
            if milliseconds.isNaN { return nil }
            return .integer(Int64(exactly: milliseconds) ?? (milliseconds < 0 ? .min : .max))
        case .reference(let reference): return .string(reference.recordName)
        default: return nil
        }
    }
}
