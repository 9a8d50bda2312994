import Foundation
import StratusBackend

/// Zone semantics: create, delete, fetch (decision 0004).
extension DatabaseContext {
    /// The capabilities of a custom zone in the private database.
    static let customZoneCapabilities: CKRecordZone.Capabilities = [.fetchChanges, .atomic]

    func publicZone(_ zoneID: CKRecordZone.ID, _ row: ZoneRow) -> CKRecordZone {
        let zone = CKRecordZone(
            zoneID: zoneID, capabilities: CKRecordZone.Capabilities(rawValue: UInt(row.capabilities)))
        zone.encryptionScope = CKRecordZone.EncryptionScope(rawValue: Int(row.encryptionScope)) ?? .perRecord
        return zone
    }

    /// Why `zoneID` cannot be created in this database, if it cannot.
    func zoneCreationError(_ zoneID: CKRecordZone.ID) -> CKError? {
        switch scope {
        case .public:
            return .make(
                .badDatabase,
                "zones cannot be created or modified in the public database (zone '\(zoneID.zoneName)')")
        case .shared:
            return .make(
                .badDatabase,
                "zones cannot be created in the shared database (zone '\(zoneID.zoneName)'); shared zones appear when a share is accepted"
            )
        case .private:
            break
        }
        if zoneID.isDefaultZone {
            return .make(.invalidArguments, "the default zone '_defaultZone' cannot be created or modified")
        }
        if let problem = Validation.zoneNameProblem(zoneID.zoneName) {
            return .make(.invalidArguments, problem)
        }
        if zoneID.ownerName != CKCurrentUserDefaultName {
            return .make(
                .permissionFailure,
                "only the owner can create zones in a private database; ownerName must be '\(CKCurrentUserDefaultName)', not '\(zoneID.ownerName)'"
            )
        }
        return nil
    }

    /// Saves and deletes zones in one transaction; every zone gets its own result.
    /// `journal` runs last in the same transaction with the outcome (a long-lived operation's
    /// callbacks commit with the writes, decision 0006); it must only write to `txn`.
    package func modifyZones(
        saving: [CKRecordZone], deleting: [CKRecordZone.ID],
        journal: ((ZoneModifyOutcome, any BackendWriteTransaction) throws -> Void)? = nil
    ) throws -> ZoneModifyOutcome {
        var seen = Set<CKRecordZone.ID>()
        for id in saving.map(\.zoneID) + deleting {
            if !seen.insert(id).inserted {
                throw CKError.make(
                    .invalidArguments, "zone '\(id.zoneName)' appears more than once in one modify-zones request")
            }
        }
        var notified: [Int64] = []
        let outcome = try engine.write { txn in
            var meta = try loadMeta(txn)
            var saved: [(CKRecordZone.ID, Result<CKRecordZone, CKError>)] = []
            var deleted: [(CKRecordZone.ID, Result<Void, CKError>)] = []
            for zone in saving {
                let id = zone.zoneID
                if let error = anonymousWriteError("zone '\(id.zoneName)'") ?? zoneCreationError(id) {
                    saved.append((id, .failure(error)))
                    continue
                }
                if var existing = try loadZone(id, txn) {
                    try recordDatabaseChange(.changed, zoneID: id, zone: &existing, meta: &meta, txn)
                    try storeZone(existing, id, txn)
                    saved.append((id, .success(publicZone(id, existing))))
                    continue
                }
                var row = ZoneRow(
                    number: meta.nextZoneNumber,
                    capabilities: UInt64(DatabaseContext.customZoneCapabilities.rawValue))
                row.encryptionScope = UInt8(zone.encryptionScope.rawValue)
                meta.nextZoneNumber += 1
                try recordDatabaseChange(.changed, zoneID: id, zone: &row, meta: &meta, txn)
                try storeZone(row, id, txn)
                saved.append((id, .success(publicZone(id, row))))
            }
            for id in deleting {
                if let error = anonymousWriteError("zone '\(id.zoneName)'") {
                    deleted.append((id, .failure(error)))
                    continue
                }
                if scope == .public {
                    deleted.append(
                        (id, .failure(.make(.badDatabase, "zones cannot be deleted in the public database"))))
                    continue
                }
                if id.isDefaultZone {
                    deleted.append((id, .failure(.make(.invalidArguments, "the default zone cannot be deleted"))))
                    continue
                }
                guard var row = try loadZone(id, txn) else {
                    deleted.append((id, .failure(.make(.zoneNotFound, "Zone '\(id.zoneName)' does not exist"))))
                    continue
                }
                try removeZoneContents(row.number, txn)
                try recordDatabaseChange(.deleted, zoneID: id, zone: &row, meta: &meta, txn)
                try txn.clear(keys.zone(id.zoneName, id.ownerName))
                try txn.clear(keys.zoneNumber(row.number))
                deleted.append((id, .success(())))
            }
            try storeMeta(meta, txn)
            // A zone made, changed or deleted fires the database subscriptions (decision 0014.1).
            let zonesChanged =
                saved.contains { (try? $0.1.get()) != nil } || deleted.contains { (try? $0.1.get()) != nil }
            notified = try fireSubscriptions([], zonesChanged: zonesChanged, txn)
            try journal?((saved, deleted), txn)
            return (saved, deleted)
        }
        engine.notified(notified)
        return outcome
    }

    /// Removes every record, change, tombstone and index entry of zone `number`.
    func removeZoneContents(_ number: Int64, _ txn: any BackendWriteTransaction) throws {
        // Asset contents are keyed by content ID; find them through the records first (in
        // their change-log entries, decision 0008).
        var range = keys.changes(number)
        while true {
            let page = try txn.scan(range, limit: 256)
            for pair in page {
                guard let stored = try ChangeEntry(decoding: pair.value).record else { continue }
                try removeAssets(of: stored.fields, txn)
            }
            guard let last = page.last, page.count == 256 else { break }
            range = KeyRange(from: last.key + [0], to: range.upperBound)
        }
        for subspace in [
            keys.records(number), keys.changes(number), keys.valueIndexes(number), keys.backReferences(number),
        ] {
            try txn.clearRange(subspace)
        }
    }

    /// Fetches zones by ID (missing ones fail with `zoneNotFound`), or every zone.
    package func fetchZones(_ ids: [CKRecordZone.ID]?) throws -> [(CKRecordZone.ID, Result<CKRecordZone, CKError>)] {
        try engine.read { txn in
            if let ids {
                return try ids.map { id in
                    if let row = try loadZone(id, txn) { return (id, .success(publicZone(id, row))) }
                    return (id, .failure(.make(.zoneNotFound, "Zone '\(id.zoneName)' does not exist")))
                }
            }
            var result: [(CKRecordZone.ID, Result<CKRecordZone, CKError>)] = []
            if scope != .shared {
                result.append((.default, .success(.default())))
            }
            var range = keys.zones
            while true {
                let page = try txn.scan(range, limit: 256)
                for pair in page {
                    var reader = OrderedKeyReader(pair.key, from: keys.prefix.bytes.count + 1)
                    let id = CKRecordZone.ID(zoneName: try reader.readString(), ownerName: try reader.readString())
                    if id.isDefaultZone { continue }
                    result.append((id, .success(publicZone(id, try ZoneRow(decoding: pair.value)))))
                }
                guard let last = page.last, page.count == 256 else { break }
                range = KeyRange(from: last.key + [0], to: range.upperBound)
            }
            return result
        }
    }
}
