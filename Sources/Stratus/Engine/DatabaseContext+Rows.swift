import Foundation
import StratusBackend

/// Reading and writing the rows every engine path shares, inside a transaction.
extension DatabaseContext {
    /// The number of the default zone, which exists in every database without being created.
    static let defaultZoneNumber: Int64 = 0

    func loadMeta(_ txn: any BackendReadTransaction, preloaded: PreloadedRows? = nil) throws -> DatabaseMeta {
        guard let bytes = try row(keys.meta, txn, preloaded) else { return DatabaseMeta() }
        return try DatabaseMeta(decoding: bytes)
    }

    /// The row at `key`, preloaded or read now.
    private func row(_ key: [UInt8], _ txn: any BackendReadTransaction, _ preloaded: PreloadedRows?) throws
        -> [UInt8]?
    {
        guard let preloaded else { return try txn.get(key) }
        return try preloaded.take(key, txn)
    }

    func storeMeta(_ meta: DatabaseMeta, _ txn: any BackendWriteTransaction) throws {
        try txn.set(keys.meta, meta.encoded())
    }

    /// The zone's row; the default zone's row is made up when it was never written.
    func loadZone(
        _ zoneID: CKRecordZone.ID, _ txn: any BackendReadTransaction, preloaded: PreloadedRows? = nil
    ) throws -> ZoneRow? {
        let key = keys.zone(zoneID.zoneName, zoneID.ownerName)
        if let bytes = try row(key, txn, preloaded) {
            let zone = try ZoneRow(decoding: bytes)
            engine.zoneNumbers.remember(key, zone.number)
            return zone
        }
        if zoneID.isDefaultZone && zoneID.ownerName == CKCurrentUserDefaultName && scope != .shared {
            engine.zoneNumbers.remember(key, DatabaseContext.defaultZoneNumber)
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
    func loadRecordType(
        _ name: String, _ txn: any BackendReadTransaction, preloaded: PreloadedRows? = nil
    ) throws -> RecordTypeRow? {
        let key = keys.recordType(name)
        guard let bytes = try row(key, txn, preloaded) else { return nil }
        return try RecordTypeRow(decoding: bytes)
    }

    /// The pointer of record `name` (live or deleted), if the zone ever had such a record
    /// since its last purge.
    func loadPointer(zone: Int64, name: String, _ txn: any BackendReadTransaction) throws -> RecordPointer? {
        guard let bytes = try txn.get(keys.record(zone, name)) else { return nil }
        return try RecordPointer(decoding: bytes)
    }

    /// The live record `name`: its pointer, then its change-log entry (decision 0008).
    func loadRecord(zone: Int64, name: String, _ txn: any BackendReadTransaction) throws -> StoredRecord? {
        guard let pointer = try loadPointer(zone: zone, name: name, txn), pointer.isLive else { return nil }
        guard let bytes = try txn.get(keys.change(zone, pointer.position)) else { throw EngineError.corruptValue }
        return try ChangeEntry.liveRecord(bytes)
    }

    /// The live records `names` (`nil` for a missing or deleted one), in order: every pointer
    /// in one `getMany`, then the entries of the live ones, in one `getMany` — or, given
    /// `firstSlice`, in slices of that many to begin with (``EntrySlices``), each record passed
    /// to `check` as it is decoded, so a caller can refuse a request before it holds all of it.
    func loadRecords(
        _ names: [(zone: Int64, name: String)], _ txn: any BackendReadTransaction, preloaded: PreloadedRows? = nil,
        firstSlice: Int? = nil, check: ((StoredRecord) throws -> Void)? = nil
    ) throws -> [StoredRecord?] {
        if names.isEmpty { return [] }
        let pointerKeys = names.map { keys.record($0.zone, $0.name) }
        let pointers = try preloaded?.takeMany(pointerKeys, txn) ?? txn.getMany(pointerKeys)
        var entryKeys: [[UInt8]] = []
        entryKeys.reserveCapacity(names.count)
        var live: [Int] = []
        live.reserveCapacity(names.count)
        for (index, bytes) in pointers.enumerated() {
            guard let bytes else { continue }
            let pointer = try RecordPointer(decoding: bytes)
            guard pointer.isLive else { continue }
            live.append(index)
            entryKeys.append(keys.change(names[index].zone, pointer.position))
        }
        var result = [StoredRecord?](repeating: nil, count: names.count)
        if entryKeys.isEmpty { return result }
        var strings = StoredRecord.RepeatedStrings()
        var entries = EntrySlices(keys: entryKeys, size: firstSlice ?? entryKeys.count)
        for index in live {
            guard let bytes = try entries.next(txn) else { throw EngineError.corruptValue }
            let stored = try ChangeEntry.liveRecord(bytes, strings: &strings)
            try check?(stored)
            result[index] = stored
        }
        return result
    }

    /// Walks the live records of type `typeNumber` among zone `zone`'s pointers in `range`, in
    /// record-name order: pointers are scanned 256 at a time and skipped by type without
    /// reading anything else (decision 0008); the entries of the kept ones are read with one
    /// `getMany` per slice of at most `batch`, 128 first, fewer while the records are large
    /// (``EntrySlices/nextSize(after:size:largest:)``). `body` returns `false` to stop.
    func walkRecords(
        zone: Int64, typeNumber: Int64, in range: KeyRange, batch: Int, _ txn: any BackendReadTransaction,
        _ body: (String, StoredRecord) throws -> Bool
    ) throws {
        let prefixLength = keys.recordsPrefix(zone).bytes.count
        var range = range
        var strings = StoredRecord.RepeatedStrings()
        // Entries in slices of at most `batch`, smaller while the records are large (`EntrySlices`).
        var size = min(EntrySlices.firstSliceSize, max(1, batch))
        while true {
            let page = try txn.scan(range, limit: 256)
            var names: [String] = []
            var entryKeys: [[UInt8]] = []
            for pair in page {
                let pointer = try RecordPointer(decoding: pair.value)
                guard pointer.isLive, pointer.typeNumber == typeNumber else { continue }
                var reader = OrderedKeyReader(pair.key, from: prefixLength)
                names.append(try reader.readString())
                entryKeys.append(keys.change(zone, pointer.position))
            }
            var start = 0
            while start < entryKeys.count {
                let end = min(start + size, entryKeys.count)
                var read = 0
                for (offset, bytes) in try txn.getMany(Array(entryKeys[start..<end])).enumerated() {
                    guard let bytes else { throw EngineError.corruptValue }
                    read += bytes.count
                    let record = try ChangeEntry.liveRecord(bytes, strings: &strings)
                    guard try body(names[start + offset], record) else { return }
                }
                size = EntrySlices.nextSize(after: read, size: size, largest: max(1, batch))
                start = end
            }
            guard let last = page.last, page.count == 256 else { return }
            range = KeyRange(from: last.key + [0], to: range.upperBound)
        }
    }

    /// The change tag of a record changed at `position` in zone `zone`: unique for ever, since
    /// positions never repeat within a zone and zone numbers never repeat within a database.
    static func changeTag(position: Int64, zone: Int64) -> String {
        // `String(_:radix:)` twice and a concatenation cost a save about 1,200 instructions;
        // the same digits written into one buffer, a tenth of that.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
            var start = buffer.count
            func prepend(_ value: Int64) {
                var rest = value.magnitude
                repeat {
                    start -= 1
                    let digit = UInt8(rest % 36)
                    buffer[start] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                    rest /= 36
                } while rest > 0
                if value < 0 {
                    start -= 1
                    buffer[start] = UInt8(ascii: "-")
                }
            }
            prepend(zone)
            start -= 1
            buffer[start] = UInt8(ascii: ".")
            prepend(position)
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[start...]), as: UTF8.self)
        }
    }

    /// The public form of a stored record.
    func makeRecord(
        _ stored: StoredRecord, id: CKRecord.ID, desiredKeys: [String]?, _ txn: any BackendReadTransaction
    ) -> CKRecord {
        // Built whole and moved into the record: no empty table made and replaced, no copy of
        // the fields.
        CKRecord(
            recordType: stored.recordType, recordID: id,
            state: CKRecord.State(
                values: fetchedFields(of: stored, desiredKeys: desiredKeys, txn), changed: [],
                system: SystemFields(
                    creationDate: Date(timeIntervalSinceReferenceDate: stored.creationDate),
                    modificationDate: Date(timeIntervalSinceReferenceDate: stored.modificationDate),
                    creatorUserRecordName: stored.creatorUserRecordName,
                    lastModifiedUserRecordName: stored.lastModifiedUserRecordName,
                    changeTag: stored.changeTag,
                    parent: stored.parent.map { .reference($0) },
                    parentChanged: false)))
    }

    /// The fields a fetch hands out of `stored`: those of `desiredKeys` (all for `nil`), with
    /// their assets copied to local files where this database does that. A fetched record's
    /// fields (``makeRecord(_:id:desiredKeys:_:)``) and a stored change's
    /// (``StoredChangedRecord``) are both these.
    func fetchedFields(of stored: StoredRecord, desiredKeys: [String]?, _ txn: any BackendReadTransaction)
        -> FieldTable
    {
        var values: FieldTable
        if let desiredKeys {
            values = FieldTable()
            for key in desiredKeys { if let v = stored.fields[key] { values[key] = v } }
        } else {
            values = stored.fields
        }
        // Assets point at local cache files; records without any (most) skip the pass, and so
        // does stratusd (its clients download content through signed URLs).
        guard materializesAssets, values.values.contains(where: \.containsAsset) else { return values }
        for (key, value) in values where value.containsAsset {
            if case .asset(let asset) = value {
                values[key] = .asset(engine.materialize(asset, keys: keys, txn))
            } else if case .list(let items) = value,
                items.contains(where: { if case .asset = $0 { return true } else { return false } })
            {
                values[key] = .list(
                    items.map { item in
                        if case .asset(let a) = item { return .asset(engine.materialize(a, keys: keys, txn)) }
                        return item
                    })
            }
        }
        return values
    }
}
