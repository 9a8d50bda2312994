import Foundation
import StratusBackend
import StratusPredicate

/// A public commit fires its users' query subscriptions on the record types it wrote
/// (decisions 0012.10, 0014.1): each user's subscriptions are stored in the user's namespace and
/// indexed in the public database, each user's entries go to that user's log.
///
/// Which subscriptions a commit judges (decision 0014.8): every one on its types in `41` (their
/// predicates require no value), and of those in `42`, the ones whose required value has the form
/// of a value a changed record holds, before or after the change, in the field they name.
extension DatabaseContext {
    /// A subscription a public commit judges: its record type, user and ID.
    private struct PublicSubscriptionCandidate {
        var recordType: String
        var user: Int64
        var id: String

        /// The subscription's identity: its user and the bytes of its ID, as its key holds them
        /// (the ID's `String` equality would merge canonically equivalent IDs, which are two
        /// subscriptions).
        var identity: PublicSubscriptionIdentity { PublicSubscriptionIdentity(user: user, id: Array(id.utf8)) }

        static func precedes(_ a: Self, _ b: Self) -> Bool {
            if a.recordType != b.recordType {
                return Array(a.recordType.utf8).lexicographicallyPrecedes(b.recordType.utf8)
            }
            if a.user != b.user { return a.user < b.user }
            return Array(a.id.utf8).lexicographicallyPrecedes(b.id.utf8)
        }
    }

    private struct PublicSubscriptionIdentity: Hashable {
        var user: Int64
        var id: [UInt8]
    }

    /// Judges the public subscriptions `changes` can fire, in the order of (record type, user,
    /// ID), and appends each user's entries to that user's log; returns the logs appended to.
    func firePublicSubscriptions(
        _ changes: [RecordChange], _ txn: any BackendWriteTransaction, _ preloaded: PreloadedRows?
    ) throws -> [Int64] {
        let candidates = try publicSubscriptionCandidates(changes, txn, preloaded)
        guard !candidates.isEmpty else { return [] }
        let scope = Int64(self.scope.rawValue)
        let rows = try txn.getMany(
            candidates.map { DatabaseKeys(containerNumber: $0.user, scope: scope).subscription($0.id) })
        let now = Date()
        var entriesByUser: [Int64: [NotificationEntry]] = [:]
        var users: [Int64] = []
        for (candidate, bytes) in zip(candidates, rows) {
            // A deleted subscription leaves no entry, but an older store's `41` entry of a
            // subscription since saved again keyed is still there.
            guard let bytes else { continue }
            let row = try SubscriptionRow(decoding: bytes)
            let fired = subscriptionEntries(for: row, changes, zonesChanged: false, now: now)
            guard !fired.isEmpty else { continue }
            if entriesByUser[candidate.user] == nil { users.append(candidate.user) }
            entriesByUser[candidate.user, default: []] += fired
            if case .query(_, _, _, let options) = row.kind,
                CKQuerySubscription.Options(rawValue: options).contains(.firesOnce)
            {
                try txn.clear(DatabaseKeys(containerNumber: candidate.user, scope: scope).subscription(candidate.id))
                try clearPublicIndexEntries(of: row, user: candidate.user, in: keys, txn)
            }
        }
        let limit = engine.notificationLogLimit
        // Each user's log gets an equal share of what the commit's budget has left (one that
        // needs less leaves more to the next): no user is always the one left without.
        var budget = NotificationLog.maximumCommitBytes
        for (index, user) in users.enumerated() {
            let share = max(budget, 0) / (users.count - index)
            var left = share
            try NotificationLog.append(entriesByUser[user] ?? [], to: user, maximumEntries: limit, budget: &left, txn)
            budget -= share - left
        }
        return users
    }

    /// The subscriptions `changes` can fire, each once, in the order of (record type, user, ID).
    private func publicSubscriptionCandidates(
        _ changes: [RecordChange], _ txn: any BackendWriteTransaction, _ preloaded: PreloadedRows?
    ) throws -> [PublicSubscriptionCandidate] {
        var candidates: [PublicSubscriptionCandidate] = []
        var keyed: [(recordType: String, range: KeyRange)] = []
        for recordType in Set(changes.map(\.recordType)).sorted() {
            let unkeyed = keys.publicSubscriptionIndex(recordType)
            for pair in try scanAll(unkeyed, txn, preloaded) {
                candidates.append(try candidate(pair.key, in: unkeyed, recordType))
            }
            let marks = keys.publicSubscriptionKeyMarks(recordType)
            for mark in try scanAll(marks, txn, preloaded) {
                var reader = OrderedKeyReader(mark.key, from: marks.lowerBound.count)
                let field = PublicSubscriptionKey.Field(
                    name: try reader.readString(), ignoresDiacritics: try reader.readInteger() != 0)
                for form in Self.forms(of: field, in: changes, recordType: recordType) {
                    keyed.append((recordType, keys.keyedPublicSubscriptions(recordType, field, form: form)))
                }
            }
        }
        if !keyed.isEmpty {
            // Every range in one batch: one round trip on a server backend.
            let pages = try txn.getMany([], scanning: keyed.map { ScanRequest($0.range, limit: Self.subscriptionPage) })
            for ((recordType, range), page) in zip(keyed, pages.scans) {
                var pairs = page
                if let last = page.last, page.count == Self.subscriptionPage {
                    pairs += try scanAll(KeyRange(from: last.key + [0], to: range.upperBound), txn, nil)
                }
                for pair in pairs { candidates.append(try candidate(pair.key, in: range, recordType)) }
            }
        }
        var seen = Set<PublicSubscriptionIdentity>()
        return candidates.sorted(by: PublicSubscriptionCandidate.precedes).filter { seen.insert($0.identity).inserted }
    }

    /// The candidate an index entry in `range` names: its key ends with (n_U, id).
    private func candidate(_ key: [UInt8], in range: KeyRange, _ recordType: String) throws
        -> PublicSubscriptionCandidate
    {
        var reader = OrderedKeyReader(key, from: range.lowerBound.count)
        let user = try reader.readInteger()
        return PublicSubscriptionCandidate(recordType: recordType, user: user, id: try reader.readString())
    }

    /// The forms of the values `field` holds in the records of `recordType` that `changes`
    /// change: after the change, or before a deletion (what a query subscription is judged on,
    /// decision 0014.1).
    private static func forms(
        of field: PublicSubscriptionKey.Field, in changes: [RecordChange], recordType: String
    ) -> Set<[UInt8]> {
        var forms = Set<[UInt8]>()
        for change in changes where change.recordType == recordType {
            guard let state = change.after ?? change.before else { continue }
            let subject = StoredRecordSubject(record: state, name: change.recordName, zoneID: change.zoneID)
            forms.formUnion(PublicSubscriptionKey.forms(of: subject.predicateValue(forKey: field.name), field))
        }
        return forms
    }

    /// Clears every index entry user `user`'s subscription `row` can have in the public
    /// database `index` (an older store's keyable subscription is in `41`), and the mark of its
    /// field once no keyed subscription uses it.
    func clearPublicIndexEntries(
        of row: SubscriptionRow, user: Int64, in index: DatabaseKeys, _ txn: any BackendWriteTransaction
    ) throws {
        for key in index.publicSubscriptionEntries(of: row, user: user) { try txn.clear(key) }
        guard case .query(let recordType, let predicate, _, _) = row.kind, let key = PublicSubscriptionKey(predicate)
        else { return }
        if try txn.scan(index.keyedPublicSubscriptions(recordType, key.field), limit: 1).isEmpty {
            try txn.clear(index.publicSubscriptionKeyMark(recordType, key.field))
        }
    }
}
