import StratusBackend

/// Building and maintaining the indexes of a record type's fields (decisions 0005, 0019): the
/// value index (values in sort order) and the match index (strings folded, list elements).
extension DatabaseContext {
    /// The encoded values (without prefix or record name) `stored` has in `index` of the
    /// (canonical) `field`: one for a value index (null when the field is missing), one per
    /// distinct element or none for a match index.
    static func indexKeys(_ stored: StoredRecord?, field: String, index: QueryPlan.Index) -> [[UInt8]] {
        guard let stored else { return [] }
        switch index {
        case .value: return IndexValue.encode(IndexValue.sortValue(of: stored, field: field)).map { [$0] } ?? []
        case .match: return IndexValue.matchKeys(stored.fields[field])
        }
    }

    /// Builds `index` of (canonical) `field` of `recordType` over every record of the type in
    /// every zone, in one transaction, and records it as built: saves maintain it from then on.
    /// A match index takes the next number of the type's field counter.
    func buildIndex(recordType: String, field: String, index: QueryPlan.Index) throws {
        try engine.write { txn in
            var schema = SchemaCache(context: self)
            guard var row = try schema.existingRow(recordType, txn) else { return }
            if row.fields[field] == nil {
                row.fields[field] = RecordTypeRow.Field(number: row.nextFieldNumber, type: .timestamp, indexed: false)
                row.nextFieldNumber += 1
            }
            guard var f = row.fields[field] else { return }
            let number: Int64
            switch index {
            case .value:
                guard !f.indexed else { return }
                number = f.number
                f.indexed = true
            case .match:
                guard f.matchIndex == nil else { return }
                number = row.nextFieldNumber
                row.nextFieldNumber += 1
                f.matchIndex = number
            }
            var zones = [DatabaseContext.defaultZoneNumber]
            zones += try fetchZones(in: txn).map(\.1.number)
            for zone in zones {
                try indexZone(zone, recordType: recordType, field: field, index: index, number: number, row: row, txn)
            }
            row.fields[field] = f
            schema.update(recordType, row)
            try schema.flush(txn)
        }
    }

    /// Writes the entries of every record of `recordType` in `zone`: the change log carries
    /// every record of the zone (decision 0008), so this is one scan.
    private func indexZone(
        _ zone: Int64, recordType: String, field: String, index: QueryPlan.Index, number: Int64, row: RecordTypeRow,
        _ txn: any BackendWriteTransaction
    ) throws {
        let prefix = keys.valueIndexPrefix(zone, row.number, number).bytes
        var range = keys.changes(zone)
        while true {
            let page = try txn.scan(range, limit: 256)
            for pair in page {
                let entry = try ChangeEntry(decoding: pair.value)
                guard let stored = entry.record, stored.recordType == recordType else { continue }
                let name = OrderedKey().appending(entry.recordName).bytes
                for key in Self.indexKeys(stored, field: field, index: index) {
                    try txn.set(prefix + key + name, IndexGroupScanner.entryValue(position: stored.position))
                }
            }
            guard let last = page.last, page.count == 256 else { break }
            range = KeyRange(from: last.key + [0], to: range.upperBound)
        }
    }

    /// Moves the record's entries in the indexes of its type from `old` to `new`. An entry's
    /// value is the position of the record's change-log entry (decision 0008), so it is
    /// rewritten on every change, even when the indexed value stays.
    func updateValueIndexes(
        zone: Int64, type: RecordTypeRow, name: String, old: StoredRecord?, new: StoredRecord?,
        _ txn: any BackendWriteTransaction
    ) throws {
        for (fieldName, field) in type.fields {
            if field.indexed {
                try moveEntries(
                    keys.valueIndexPrefix(zone, type.number, field.number).bytes, name: name, new: new,
                    from: Self.indexKeys(old, field: fieldName, index: .value),
                    to: Self.indexKeys(new, field: fieldName, index: .value), txn)
            }
            if let match = field.matchIndex {
                try moveEntries(
                    keys.valueIndexPrefix(zone, type.number, match).bytes, name: name, new: new,
                    from: Self.indexKeys(old, field: fieldName, index: .match),
                    to: Self.indexKeys(new, field: fieldName, index: .match), txn)
            }
        }
    }

    private func moveEntries(
        _ prefix: [UInt8], name: String, new: StoredRecord?, from oldKeys: [[UInt8]], to newKeys: [[UInt8]],
        _ txn: any BackendWriteTransaction
    ) throws {
        guard !oldKeys.isEmpty || !newKeys.isEmpty else { return }
        let suffix = OrderedKey().appending(name).bytes
        for key in oldKeys where !newKeys.contains(key) {
            try txn.clear(prefix + key + suffix)
        }
        guard let new else { return }
        for key in newKeys {
            try txn.set(prefix + key + suffix, IndexGroupScanner.entryValue(position: new.position))
        }
    }
}
