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
        case .match where field == IndexValue.tokensField: return IndexValue.tokenKeys(stored)
        case .match: return IndexValue.matchKeys(stored.fields[field])
        }
    }

    /// The change-log entries one index-build transaction visits at most (decision 0019.7):
    /// writers and other queries wait for one batch, never for a whole build.
    static let indexBuildBatch = 512

    /// Builds `index` of (canonical) `field` of `recordType` over every record of the type in
    /// every zone, one bounded batch per transaction, until it is ready. The first batch marks
    /// the index as being built, so saves maintain it from then on and the batches only visit
    /// what existed before; a build cut short (a crash) resumes from its cursor.
    func buildIndex(recordType: String, field: String, index: QueryPlan.Index) throws {
        while try !buildIndexBatch(recordType: recordType, field: field, index: index) {}
    }

    /// Runs one batch of the build of `index` of `field` (starting it if needed); returns
    /// whether the index is ready.
    @discardableResult
    func buildIndexBatch(recordType: String, field: String, index: QueryPlan.Index) throws -> Bool {
        try engine.write { txn in
            var schema = SchemaCache(context: self)
            guard var row = try schema.existingRow(recordType, txn) else { return true }
            if row.fields[field] == nil {
                // A system field (`___createTime`, `___modTime`) gets its number when first indexed.
                row.fields[field] = RecordTypeRow.Field(number: row.nextFieldNumber, type: .timestamp, indexed: false)
                row.nextFieldNumber += 1
            }
            guard var f = row.fields[field], !f.isReady(index) else { return true }
            if index == .match && f.matchIndex == nil {
                f.matchIndex = row.nextFieldNumber
                row.nextFieldNumber += 1
            }
            let start = (index == .value ? f.valueBuild : f.matchBuild) ?? IndexBuildCursor(zone: -1, position: -1)
            let number = index == .value ? f.number : f.matchIndex ?? f.number
            let next = try indexBatch(
                from: start, recordType: recordType, field: field, index: index,
                prefix: { self.keys.valueIndexPrefix($0, row.number, number).bytes }, txn)
            switch index {
            case .value:
                f.valueBuild = next
                f.indexed = next == nil
            case .match:
                f.matchBuild = next
            }
            row.fields[field] = f
            schema.update(recordType, row)
            try schema.flush(txn)
            return next == nil
        }
    }

    /// Indexes up to ``indexBuildBatch`` change-log entries after `start`, zone by zone in
    /// number order (the change log carries every record of its zone, decision 0008); returns
    /// where the next batch starts, or `nil` when every zone is done.
    private func indexBatch(
        from start: IndexBuildCursor, recordType: String, field: String, index: QueryPlan.Index,
        prefix: (Int64) -> [UInt8], _ txn: any BackendWriteTransaction
    ) throws -> IndexBuildCursor? {
        let zones = ([DatabaseContext.defaultZoneNumber] + (try fetchZones(in: txn).map(\.1.number)))
            .filter { $0 >= start.zone }.sorted()
        var budget = Self.indexBuildBatch
        for zone in zones {
            let range = zone == start.zone ? keys.changes(zone, after: start.position) : keys.changes(zone)
            let page = try txn.scan(range, limit: budget)
            let indexPrefix = prefix(zone)
            for pair in page {
                let entry = try ChangeEntry(decoding: pair.value)
                guard let stored = entry.record, stored.recordType == recordType else { continue }
                let name = OrderedKey().appending(entry.recordName).bytes
                for key in Self.indexKeys(stored, field: field, index: index) {
                    try txn.set(indexPrefix + key + name, IndexGroupScanner.entryValue(position: stored.position))
                }
            }
            budget -= page.count
            if budget == 0, let last = page.last {
                var reader = OrderedKeyReader(last.key, from: last.key.count - 9)
                return IndexBuildCursor(zone: zone, position: try reader.readInteger())
            }
        }
        return nil
    }

    /// Moves the record's entries in the indexes of its type from `old` to `new`. An entry's
    /// value is the position of the record's change-log entry (decision 0008), so it is
    /// rewritten on every change, even when the indexed value stays.
    func updateValueIndexes(
        zone: Int64, type: RecordTypeRow, name: String, old: StoredRecord?, new: StoredRecord?,
        _ txn: any BackendWriteTransaction
    ) throws {
        for (fieldName, field) in type.fields {
            if field.isMaintained(.value) {
                try moveEntries(
                    keys.valueIndexPrefix(zone, type.number, field.number).bytes, name: name, new: new,
                    from: Self.indexKeys(old, field: fieldName, index: .value),
                    to: Self.indexKeys(new, field: fieldName, index: .value), txn)
            }
            if field.isMaintained(.match), let match = field.matchIndex {
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
