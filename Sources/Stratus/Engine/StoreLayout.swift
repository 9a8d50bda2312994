import Foundation
import StratusBackend

/// The engine's key layout (decisions 0002, 0008, 0012.10). Every key starts with one of these
/// bytes. Tag `08` holds stratusd's long-lived operation leases (decision 0014.10); `09` is the
/// staged-asset queue (decision 0012.8); `0A` the journal's expiry index (decision 0014.11).
enum StoreLayout {
    /// Store-wide metadata: `[0x01] + ("store")`, and the number counter `[0x01] + ("containers")`.
    static let metaTag: UInt8 = 0x01
    /// Container directory (embedded `CKContainer`s): `[0x02] + (identifier)` → number.
    static let containerTag: UInt8 = 0x02
    /// Database data: `[0x03] + (number, scope) + …`, where the number is a container's (`02`)
    /// or a namespace's (`05`).
    static let databaseTag: UInt8 = 0x03
    /// Long-lived operation journal: `[0x04] + (number) + …`.
    static let journalTag: UInt8 = 0x04
    /// Namespace directory (stratusd, decision 0012.10): `[0x05] + (container, environment,
    /// owner)` → number, drawn from the same counter as the container directory's, so a
    /// namespace's number never equals a container's. `environment` is `"development"` or
    /// `"production"`; `owner` is `""` (the public database) or a user record name.
    static let namespaceTag: UInt8 = 0x05
    /// Reserved for the server's auth data (decision 0013.2); the engine never reads or writes
    /// it. The server reaches it only through ``ServerData``, which refuses any other key.
    static let serverDataTag: UInt8 = 0x06
    /// Notification logs (decision 0014.2): `[0x07] + (n_U) + 00` → head, `[0x07] + (n_U) + 01
    /// + (position)` → entry (``NotificationLog``).
    static let notificationTag: UInt8 = 0x07
    /// stratusd's long-lived operation leases (decision 0014.10): `[0x08] + 01 + (journal
    /// number, operation ID)` → holder process ID, expiry (``LongLivedLeases``).
    static let leaseTag: UInt8 = 0x08
    /// Staged asset content waiting for a record (stratusd's uploads, decision 0012.8):
    /// `[0x09] + (staged at, ms since 1970; database number; scope; content ID)` → empty, in
    /// time order so one scan finds what is old enough to purge in every database.
    static let stagedAssetTag: UInt8 = 0x09
    /// Journal entries by expiry (decision 0014.11): `[0x0A] + (expiry, ms since 1970; journal
    /// number; operation ID)` → empty, written with the header that finishes the entry, so one
    /// scan finds every entry past its retention in every journal (``JournalExpiryIndex``).
    static let journalExpiryTag: UInt8 = 0x0A
    /// The CloudKit schema of each container × environment (decision 0020):
    /// `[0x0B] + (container, environment)` → the schema's canonical text (``SchemaScope``).
    static let schemaTag: UInt8 = 0x0B
    /// The declared indexes an import left to build (decision 0020.8):
    /// `[0x0C] + (container, environment)` → generation, container, environment
    /// (``PendingIndexBuilds``), so a builder finds them in one scan, after a restart too.
    static let pendingIndexBuildsTag: UInt8 = 0x0C

    static var storeMetaKey: [UInt8] { OrderedKey([metaTag]).appending("store").bytes }
    /// The next container or namespace number (one counter for both directories).
    static var containerCounterKey: [UInt8] { OrderedKey([metaTag]).appending("containers").bytes }

    /// An embedded container's directory entry: `(identifier)` in development (where every
    /// embedded container lived before environments), `(identifier, "production")` in
    /// production (decision 0020.3).
    static func containerKey(_ identifier: String, environment: Namespace.Environment = .development) -> [UInt8] {
        let key = OrderedKey([containerTag]).appending(identifier)
        return environment == .development ? key.bytes : key.appending(environment.rawValue).bytes
    }

    static func namespaceKey(_ namespace: Namespace) -> [UInt8] {
        OrderedKey([namespaceTag]).appending(namespace.container).appending(namespace.environment.rawValue)
            .appending(namespace.owner).bytes
    }
}

/// The keys of one database (a container's public, private or shared database).
struct DatabaseKeys: Sendable {
    let prefix: OrderedKey

    init(containerNumber: Int64, scope: Int64) {
        prefix = OrderedKey([StoreLayout.databaseTag]).appending(containerNumber).appending(scope)
    }

    // Sub-spaces of a database.
    static let metaTag: UInt8 = 0x10
    static let zoneTag: UInt8 = 0x11
    static let zoneNumberTag: UInt8 = 0x12
    static let databaseChangeTag: UInt8 = 0x13
    /// Record pointers (decision 0008); `0x21` (tombstones) and `0x23` (type index) were
    /// format 1's and are not used.
    static let recordTag: UInt8 = 0x20
    static let changeTag: UInt8 = 0x22
    static let valueIndexTag: UInt8 = 0x24
    static let backReferenceTag: UInt8 = 0x25
    /// Asset content, or its first part (``AssetParts``, decision 0015): `(content ID)` → bytes.
    static let assetTag: UInt8 = 0x26
    /// Staged asset content no record holds yet: `(content ID)` → staged at (ms since 1970).
    static let stagedAssetTag: UInt8 = 0x27
    /// Asset content after its first part (decision 0015): `(content ID, index ≥ 1)` → bytes.
    static let assetPartTag: UInt8 = 0x28
    static let recordTypeTag: UInt8 = 0x30
    static let subscriptionTag: UInt8 = 0x40
    /// In a public database: `41 (record type, n_U, id)` → empty, user U's query subscription
    /// `id` on that type, stored at `03 (n_U, 1) 40 (id)` (decisions 0012.10, 0014.1).
    static let publicSubscriptionIndexTag: UInt8 = 0x41
    /// In a public database: `42 (record type, field, diacritics, form, n_U, id)` → empty, user
    /// U's query subscription `id` that requires `field ==[d] <a value of that form>` (decision
    /// 0014.8; `diacritics` 1 with `[d]`, else 0); such a subscription is not in `41`.
    static let keyedPublicSubscriptionTag: UInt8 = 0x42
    /// In a public database: `43 (record type, field, diacritics)` → empty while some `42` entry
    /// of that type uses that field so.
    static let publicSubscriptionKeyTag: UInt8 = 0x43

    var meta: [UInt8] { prefix.appending(tag: DatabaseKeys.metaTag).bytes }

    func zone(_ zoneName: String, _ ownerName: String) -> [UInt8] {
        prefix.appending(tag: DatabaseKeys.zoneTag).appending(zoneName).appending(ownerName).bytes
    }
    var zones: KeyRange { prefix.appending(tag: DatabaseKeys.zoneTag).range }

    func zoneNumber(_ zone: Int64) -> [UInt8] {
        prefix.appending(tag: DatabaseKeys.zoneNumberTag).appending(zone).bytes
    }
    var zoneNumbers: KeyRange { prefix.appending(tag: DatabaseKeys.zoneNumberTag).range }

    func databaseChange(_ position: Int64) -> [UInt8] {
        prefix.appending(tag: DatabaseKeys.databaseChangeTag).appending(position).bytes
    }
    /// Database changes after `position`.
    func databaseChanges(after position: Int64) -> KeyRange {
        KeyRange(
            from: databaseChange(position + 1),
            to: KeyRange.successor(ofPrefix: prefix.appending(tag: DatabaseKeys.databaseChangeTag).bytes))
    }

    /// The prefix of sub-space `tag` of zone `zone`, in one buffer with room for `extra` more
    /// bytes (the hot keys are built without intermediate copies).
    private func inZone(_ tag: UInt8, _ zone: Int64, reserving extra: Int = 0) -> OrderedKey {
        var key = OrderedKey(capacity: prefix.bytes.count + 10 + extra)
        key.append(raw: prefix.bytes)
        key.append(tag: tag)
        key.append(zone)
        return key
    }

    /// The pointer of record `name` (`RecordPointer`): where its change-log entry is.
    func record(_ zone: Int64, _ name: String) -> [UInt8] {
        var key = inZone(DatabaseKeys.recordTag, zone, reserving: name.utf8.count + 2)
        key.append(name)
        return key.bytes
    }
    /// The prefix of zone `zone`'s record pointers, in record-name order.
    func recordsPrefix(_ zone: Int64) -> OrderedKey { inZone(DatabaseKeys.recordTag, zone) }
    func records(_ zone: Int64) -> KeyRange { inZone(DatabaseKeys.recordTag, zone).range }

    func change(_ zone: Int64, _ position: Int64) -> [UInt8] {
        var key = inZone(DatabaseKeys.changeTag, zone, reserving: 9)
        key.append(position)
        return key.bytes
    }
    /// Change-log entries of `zone` after `position`.
    func changes(_ zone: Int64, after position: Int64) -> KeyRange {
        KeyRange(
            from: change(zone, position + 1),
            to: KeyRange.successor(ofPrefix: inZone(DatabaseKeys.changeTag, zone).bytes))
    }
    func changes(_ zone: Int64) -> KeyRange { inZone(DatabaseKeys.changeTag, zone).range }

    func valueIndexPrefix(_ zone: Int64, _ type: Int64, _ field: Int64) -> OrderedKey {
        inZone(DatabaseKeys.valueIndexTag, zone).appending(type).appending(field)
    }
    func valueIndexes(_ zone: Int64) -> KeyRange { inZone(DatabaseKeys.valueIndexTag, zone).range }

    func backReference(_ zone: Int64, target: String, referrer: String) -> [UInt8] {
        inZone(DatabaseKeys.backReferenceTag, zone).appending(target).appending(referrer).bytes
    }
    func backReferences(_ zone: Int64, target: String) -> KeyRange {
        inZone(DatabaseKeys.backReferenceTag, zone).appending(target).range
    }
    func backReferences(_ zone: Int64) -> KeyRange { inZone(DatabaseKeys.backReferenceTag, zone).range }

    func asset(_ contentID: String) -> [UInt8] {
        prefix.appending(tag: DatabaseKeys.assetTag).appending(contentID).bytes
    }

    /// Part `index` (from 1) of content `contentID` (``AssetParts``; part 0 is ``asset(_:)``).
    func assetPart(_ contentID: String, _ index: Int64) -> [UInt8] {
        prefix.appending(tag: DatabaseKeys.assetPartTag).appending(contentID).appending(index).bytes
    }
    /// Every part after the first of content `contentID`, in order.
    func assetParts(_ contentID: String) -> KeyRange {
        prefix.appending(tag: DatabaseKeys.assetPartTag).appending(contentID).range
    }

    /// The marker of staged content `contentID` that no record holds yet.
    func stagedAsset(_ contentID: String) -> [UInt8] {
        prefix.appending(tag: DatabaseKeys.stagedAssetTag).appending(contentID).bytes
    }

    func recordType(_ name: String) -> [UInt8] {
        prefix.appending(tag: DatabaseKeys.recordTypeTag).appending(name).bytes
    }

    func subscription(_ id: String) -> [UInt8] {
        prefix.appending(tag: DatabaseKeys.subscriptionTag).appending(id).bytes
    }
    var subscriptions: KeyRange { prefix.appending(tag: DatabaseKeys.subscriptionTag).range }

    func publicSubscriptionIndex(_ recordType: String, user: Int64, id: String) -> [UInt8] {
        prefix.appending(tag: DatabaseKeys.publicSubscriptionIndexTag).appending(recordType).appending(user)
            .appending(id).bytes
    }
    /// The users' query subscriptions on `recordType` (in a public database).
    func publicSubscriptionIndex(_ recordType: String) -> KeyRange {
        prefix.appending(tag: DatabaseKeys.publicSubscriptionIndexTag).appending(recordType).range
    }

    /// User `user`'s keyed query subscription `id` on `recordType` (in a public database).
    func keyedPublicSubscription(_ recordType: String, _ key: PublicSubscriptionKey, user: Int64, id: String)
        -> [UInt8]
    {
        var entry = keyedPublicSubscriptionPrefix(recordType, key.field)
        entry.append(bytes: key.value)
        entry.append(user)
        entry.append(id)
        return entry.bytes
    }
    /// The keyed query subscriptions on `recordType` that require `field` to hold a value of
    /// `form`.
    func keyedPublicSubscriptions(_ recordType: String, _ field: PublicSubscriptionKey.Field, form: [UInt8])
        -> KeyRange
    {
        var start = keyedPublicSubscriptionPrefix(recordType, field)
        start.append(bytes: form)
        return start.range
    }
    /// The keyed query subscriptions on `recordType` that require a value of `field`.
    func keyedPublicSubscriptions(_ recordType: String, _ field: PublicSubscriptionKey.Field) -> KeyRange {
        keyedPublicSubscriptionPrefix(recordType, field).range
    }
    private func keyedPublicSubscriptionPrefix(_ recordType: String, _ field: PublicSubscriptionKey.Field)
        -> OrderedKey
    {
        prefix.appending(tag: DatabaseKeys.keyedPublicSubscriptionTag).appending(recordType).appending(field.name)
            .appending(field.ignoresDiacritics ? 1 : 0)
    }
    /// The mark that keyed subscriptions on `recordType` use `field`.
    func publicSubscriptionKeyMark(_ recordType: String, _ field: PublicSubscriptionKey.Field) -> [UInt8] {
        prefix.appending(tag: DatabaseKeys.publicSubscriptionKeyTag).appending(recordType).appending(field.name)
            .appending(field.ignoresDiacritics ? 1 : 0).bytes
    }
    /// The marks of the fields keyed subscriptions on `recordType` use.
    func publicSubscriptionKeyMarks(_ recordType: String) -> KeyRange {
        prefix.appending(tag: DatabaseKeys.publicSubscriptionKeyTag).appending(recordType).range
    }
    /// Every index entry user `user`'s subscription `row` can have (none unless a query
    /// subscription): its `41` entry and, when its predicate requires a value, its `42` entry.
    func publicSubscriptionEntries(of row: SubscriptionRow, user: Int64) -> [[UInt8]] {
        guard case .query(let recordType, let predicate, _, _) = row.kind else { return [] }
        let id = row.subscriptionID
        var entries = [publicSubscriptionIndex(recordType, user: user, id: id)]
        if let key = PublicSubscriptionKey(predicate) {
            entries.append(keyedPublicSubscription(recordType, key, user: user, id: id))
        }
        return entries
    }
}
