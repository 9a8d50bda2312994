import Foundation
import StratusBackend

/// Reading and writing the rows every engine path shares, inside a transaction.
extension DatabaseContext {
    /// The number of the default zone, which exists in every database without being created.
    static let defaultZoneNumber: Int64 = 0

    func loadMeta(_ txn: any BackendReadTransaction) throws -> DatabaseMeta {
        guard let bytes = try txn.get(keys.meta) else { return DatabaseMeta() }
        return try DatabaseMeta(decoding: bytes)
    }

    func storeMeta(_ meta: DatabaseMeta, _ txn: any BackendWriteTransaction) throws {
        try txn.set(keys.meta, meta.encoded())
    }

    /// The zone's row; the default zone's row is made up when it was never written.
    func loadZone(_ zoneID: CKRecordZone.ID, _ txn: any BackendReadTransaction) throws -> ZoneRow? {
        if let bytes = try txn.get(keys.zone(zoneID.zoneName, zoneID.ownerName)) {
            return try ZoneRow(decoding: bytes)
        }
        if zoneID.isDefaultZone && zoneID.ownerName == CKCurrentUserDefaultName && scope != .shared {
            return ZoneRow(number: DatabaseContext.defaultZoneNumber, capabilities: 0)
        }
        return nil
    }

    func storeZone(_ row: ZoneRow, _ zoneID: CKRecordZone.ID, _ txn: any BackendWriteTransaction) throws {
        try txn.set(keys.zone(zoneID.zoneName, zoneID.ownerName), row.encoded())
        var w = ByteWriter()
        w.write(zoneID.zoneName)
        w.write(zoneID.ownerName)
        try txn.set(keys.zoneNumber(row.number), w.bytes)
    }

    /// The zone ID of zone number `number`, if the zone exists.
    func zoneID(number: Int64, _ txn: any BackendReadTransaction) throws -> CKRecordZone.ID? {
        if number == DatabaseContext.defaultZoneNumber { return .default }
        guard let bytes = try txn.get(keys.zoneNumber(number)) else { return nil }
        var r = ByteReader(bytes)
        return CKRecordZone.ID(zoneName: try r.readString(), ownerName: try r.readString())
    }

    /// Moves the zone's entry in the database change log to the next position.
    func recordDatabaseChange(
        _ kind: DatabaseChangeEntry.Kind, zoneID: CKRecordZone.ID, zone: inout ZoneRow,
        meta: inout DatabaseMeta, _ txn: any BackendWriteTransaction
    ) throws {
        if zone.databaseChangePosition > 0 {
            try txn.clear(keys.databaseChange(zone.databaseChangePosition))
        }
        let position = meta.nextDatabasePosition
        meta.nextDatabasePosition += 1
        try txn.set(
            keys.databaseChange(position),
            DatabaseChangeEntry(zoneName: zoneID.zoneName, ownerName: zoneID.ownerName, kind: kind).encoded())
        zone.databaseChangePosition = position
    }

    /// The record type's schema row, if the type was ever saved.
    func loadRecordType(_ name: String, _ txn: any BackendReadTransaction) throws -> RecordTypeRow? {
        guard let bytes = try txn.get(keys.recordType(name)) else { return nil }
        return try RecordTypeRow(decoding: bytes)
    }

    func loadRecord(zone: Int64, name: String, _ txn: any BackendReadTransaction) throws -> StoredRecord? {
        guard let bytes = try txn.get(keys.record(zone, name)) else { return nil }
        return try StoredRecord(decoding: bytes)
    }

    /// The change tag of a record changed at `position` in zone `zone`: unique for ever, since
    /// positions never repeat within a zone and zone numbers never repeat within a database.
    static func changeTag(position: Int64, zone: Int64) -> String {
        String(position, radix: 36) + "." + String(zone, radix: 36)
    }

    /// The public form of a stored record.
    func makeRecord(
        _ stored: StoredRecord, id: CKRecord.ID, desiredKeys: [String]?, _ txn: any BackendReadTransaction
    ) -> CKRecord {
        var state = CKRecord.State()
        if let desiredKeys {
            for key in desiredKeys { if let v = stored.fields[key] { state.values[key] = v } }
        } else {
            state.values = stored.fields
        }
        for (key, value) in state.values {
            if case .asset(let asset) = value {
                state.values[key] = .asset(engine.materialize(asset, keys: keys, txn))
            } else if case .list(let items) = value,
                items.contains(where: { if case .asset = $0 { return true } else { return false } })
            {
                state.values[key] = .list(
                    items.map { item in
                        if case .asset(let a) = item { return .asset(engine.materialize(a, keys: keys, txn)) }
                        return item
                    })
            }
        }
        state.system = SystemFields(
            creationDate: Date(timeIntervalSinceReferenceDate: stored.creationDate),
            modificationDate: Date(timeIntervalSinceReferenceDate: stored.modificationDate),
            creatorUserRecordName: stored.creatorUserRecordName,
            lastModifiedUserRecordName: stored.lastModifiedUserRecordName,
            changeTag: stored.changeTag,
            parent: stored.parent.map { .reference($0) },
            parentChanged: false)
        return CKRecord(recordType: stored.recordType, recordID: id, state: state)
    }
}
