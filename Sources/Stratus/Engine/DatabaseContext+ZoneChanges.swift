import Foundation
import StratusBackend

/// One batch of a zone's changes, in change-log order.
package struct ZoneChangesBatch: Sendable {
    package enum Change: Sendable {
        case changed(CKRecord)
        /// A deleted record's ID and record type.
        case deleted(CKRecord.ID, String)
    }
    package var changes: [Change]
    package var token: CKServerChangeToken
    package var moreComing: Bool
    package var clientChangeTokenData: Data?

    /// A batch of a zone's `changes`, up to `token`.
    package init(changes: [Change], token: CKServerChangeToken, moreComing: Bool, clientChangeTokenData: Data?) {
        self.changes = changes
        self.token = token
        self.moreComing = moreComing
        self.clientChangeTokenData = clientChangeTokenData
    }
}

/// Record-zone change fetching from the zone's change log (decisions 0002, 0003).
extension DatabaseContext {
    /// The batch size when the client sets no limit, and the largest batch ever returned.
    package static let defaultChangesBatch = 400
    package static let maximumChangesBatch = 2000
    /// The most bytes of change-log entries (records, as stored) one batch reads: a batch of
    /// 2,000 records of 1 MB would otherwise be 2 GB held for one answer.
    package static let maximumChangesBatchBytes = 16 << 20

    /// The next batch of changes of `zoneID` after `token` (from the beginning for `nil`).
    ///
    /// A record changed several times appears once, in its latest state. A `nil`-token fetch
    /// reports no deletions (nothing to delete on a client that has nothing).
    package func fetchZoneChanges(
        _ zoneID: CKRecordZone.ID, since token: CKServerChangeToken?, limit: Int, desiredKeys: [String]?
    ) throws -> ZoneChangesBatch {
        try Validation.checkDesiredKeys(desiredKeys)
        let page = try readDecodedZoneChanges(zoneID, since: token, limit: limit) { name, stored, txn in
            let id = CKRecord.ID(recordName: name, zoneID: zoneID)
            return ZoneChangesBatch.Change.changed(makeRecord(stored, id: id, desiredKeys: desiredKeys, txn))
        } deleted: { name, type in
            .deleted(CKRecord.ID(recordName: name, zoneID: zoneID), type)
        }
        return ZoneChangesBatch(
            changes: page.changes, token: page.token, moreComing: page.moreComing,
            clientChangeTokenData: page.clientChangeTokenData)
    }

    /// ``fetchZoneChanges(_:since:limit:desiredKeys:)`` as the change log stores the records,
    /// without making a `CKRecord` of each: for answers written straight from them (stratusd's).
    /// The same changes, token and fields (``fetchedFields(of:desiredKeys:_:)``).
    /// A batch ends before the entry that would take it past `byteBudget` bytes of entries
    /// (it holds one whatever the budget): an answer of several zones shares one budget.
    package func fetchStoredZoneChanges(
        _ zoneID: CKRecordZone.ID, since token: CKServerChangeToken?, limit: Int, desiredKeys: [String]?,
        byteBudget: Int = DatabaseContext.maximumChangesBatchBytes
    ) throws -> StoredZoneChangesBatch {
        try Validation.checkDesiredKeys(desiredKeys)
        return try readDecodedZoneChanges(zoneID, since: token, limit: limit, byteBudget: byteBudget) {
            name, stored, txn in
            .changed(
                StoredChangedRecord(
                    recordName: name, stored: stored, fields: fetchedFields(of: stored, desiredKeys: desiredKeys, txn)))
        } deleted: { name, type in
            .deleted(recordName: name, recordType: type)
        }
    }

    /// ``fetchZoneChanges(_:since:limit:desiredKeys:)`` with every field, each live record as
    /// its change-log entry's bytes, not decoded (decision 0018.8): for the binary record
    /// encoding, whose record is the entry's form.
    package func fetchRawZoneChanges(
        _ zoneID: CKRecordZone.ID, since token: CKServerChangeToken?, limit: Int
    ) throws -> RawZoneChangesBatch {
        try readZoneChanges(zoneID, since: token, limit: limit) { bytes, reportsDeletions in
            try RawZoneChange(entry: Array(bytes), reportsDeletions: reportsDeletions)
        } make: { change, _ in
            change
        }
    }

    /// ``readZoneChanges(_:since:limit:read:make:)`` with each entry decoded straight out of the
    /// backend's bytes: each live record made by `changed` and each deletion by `deleted`.
    private func readDecodedZoneChanges<Change: Sendable>(
        _ zoneID: CKRecordZone.ID, since token: CKServerChangeToken?, limit: Int,
        byteBudget: Int = DatabaseContext.maximumChangesBatchBytes,
        changed: (String, StoredRecord, any BackendReadTransaction) throws -> Change,
        deleted: (String, String) -> Change
    ) throws -> ZoneChangesPage<Change> {
        var strings = StoredRecord.RepeatedStrings()
        return try readZoneChanges(zoneID, since: token, limit: limit, byteBudget: byteBudget) {
            bytes, reportsDeletions in
            var reader = LentByteReader(bytes)
            let entry = try ChangeEntry(reading: &reader, strings: &strings)
            return entry.deletedRecordType == nil || reportsDeletions ? entry : nil
        } make: { entry, txn in
            guard let record = entry.record else { return deleted(entry.recordName, entry.deletedRecordType ?? "") }
            return try changed(entry.recordName, record, txn)
        }
    }

    /// Reads the next batch of changes of `zoneID` after `token`. The change log's entries are
    /// lent by the backend to `read` (`nil`: not reported), which is told whether deletions are
    /// reported (not from a `nil` token) and must not use the transaction; once the scan is
    /// over, `make` turns each of them into a change, with the transaction.
    private func readZoneChanges<Entry, Change: Sendable>(
        _ zoneID: CKRecordZone.ID, since token: CKServerChangeToken?, limit: Int,
        byteBudget: Int = DatabaseContext.maximumChangesBatchBytes,
        read: (UnsafeRawBufferPointer, Bool) throws -> Entry?,
        make: (Entry, any BackendReadTransaction) throws -> Change
    ) throws -> ZoneChangesPage<Change> {
        if scope == .public {
            throw CKError.make(.badDatabase, "record zone changes cannot be fetched in the public database")
        }
        return try engine.read { txn in
            guard let zone = try loadZone(zoneID, txn) else {
                throw CKError.make(.zoneNotFound, "Zone '\(zoneID.zoneName)' does not exist")
            }
            guard CKRecordZone.Capabilities(rawValue: UInt(zone.capabilities)).contains(.fetchChanges) else {
                throw CKError.make(
                    .invalidArguments,
                    "zone '\(zoneID.zoneName)' does not support change fetching (the default zone never does); use a custom zone"
                )
            }
            let start = try token.map { try startPosition(of: $0, zone: zone, zoneID) } ?? 0
            let batch =
                limit > 0 ? min(limit, DatabaseContext.maximumChangesBatch) : DatabaseContext.defaultChangesBatch
            var entries: [Entry] = []
            entries.reserveCapacity(batch)
            var taken = 0
            var bytes = 0
            var moreComing = false
            var last = start
            let prefixLength = keys.changes(zone.number).lowerBound.count
            // One range scan: a live entry carries its record (decision 0008), read where the
            // backend holds it. A batch ends at `batch` entries, or before the entry that would
            // take it past ``maximumChangesBatchBytes`` (a batch holds at least one).
            try txn.scan(keys.changes(zone.number, after: start), limit: batch + 1, reverse: false) { key, value in
                guard !moreComing else { return }
                if taken == batch || (taken > 0 && bytes + value.count > byteBudget) {
                    moreComing = true
                    return
                }
                taken += 1
                bytes += value.count
                last = try OrderedKeyReader.integer(in: key, at: prefixLength)
                if let entry = try read(value, token != nil) { entries.append(entry) }
            }
            let changes = try entries.map { try make($0, txn) }
            let position = moreComing ? last : max(start, zone.nextPosition - 1)
            let newToken = ChangeTokenPayload(
                kind: .zone, storeID: engine.storeID, containerNumber: containerNumber,
                scope: UInt8(scope.rawValue), zoneNumber: zone.number, position: position,
                horizon: zone.horizon
            ).token(macKey: engine.macKey)
            return ZoneChangesPage(
                changes: changes, token: newToken, moreComing: moreComing,
                clientChangeTokenData: zone.clientChangeTokenData.map { Data($0) }, bytesRead: bytes)
        }
    }

    /// The change-log position `token` continues from in `zone`; `changeTokenExpired` when it
    /// belongs elsewhere or to another history of the zone.
    private func startPosition(of token: CKServerChangeToken, zone: ZoneRow, _ zoneID: CKRecordZone.ID) throws
        -> Int64
    {
        let payload = try ChangeTokenPayload.decode(token, expected: .zone, context: self)
        guard payload.zoneNumber == zone.number else {
            throw CKError.make(
                .changeTokenExpired,
                "the change token belongs to another zone, or to an earlier zone named '\(zoneID.zoneName)'; fetch again from a nil token"
            )
        }
        // Issued before the last purge: the purge dropped deletions it never reported.
        // (A walk started after the purge may hand out positions below the horizon,
        // where the surviving records' entries stay; its tokens carry this horizon.)
        guard payload.horizon >= zone.horizon else {
            throw CKError.make(
                .changeTokenExpired,
                "the history of zone '\(zoneID.zoneName)' before this change token was purged; fetch again from a nil token"
            )
        }
        guard payload.horizon == zone.horizon, payload.position < zone.nextPosition else {
            throw CKError.make(
                .changeTokenExpired,
                "the change token is newer than zone '\(zoneID.zoneName)' (was the store restored from an older copy?); fetch again from a nil token"
            )
        }
        return payload.position
    }

    /// Purges the change history of `zoneID` up to now: tombstones are dropped and every
    /// change token issued before fails with `changeTokenExpired` (decision 0003).
    package func purgeChangeHistory(_ zoneID: CKRecordZone.ID) throws {
        try engine.write { txn in
            guard var zone = try loadZone(zoneID, txn) else {
                throw CKError.make(.zoneNotFound, "Zone '\(zoneID.zoneName)' does not exist")
            }
            // Tombstones are the deleted pointers (decision 0008): each goes with its entry.
            var range = keys.records(zone.number)
            while true {
                let page = try txn.scan(range, limit: 256)
                for pair in page {
                    let pointer = try RecordPointer(decoding: pair.value)
                    guard !pointer.isLive else { continue }
                    try txn.clear(keys.change(zone.number, pointer.position))
                    try txn.clear(pair.key)
                }
                guard let last = page.last, page.count == 256 else { break }
                range = KeyRange(from: last.key + [0], to: range.upperBound)
            }
            // Give the zone a fresh position so that a token equal to the old head is older
            // than the horizon.
            zone.horizon = zone.nextPosition
            zone.nextPosition += 1
            try storeZone(zone, zoneID, txn)
        }
    }
}
