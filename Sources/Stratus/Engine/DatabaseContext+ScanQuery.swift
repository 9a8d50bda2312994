import StratusBackend

/// Unsorted queries without a plan: the records of the type, zone by zone, by name.
extension DatabaseContext {
    /// One page of an unsorted query that scans the records of its type, continued after a
    /// keyset cursor (zone number, record name). It ends when it holds `pageSize` matches and
    /// one more exists, when its records carry ``maximumQueryPageBytes``, or when it has read
    /// ``maximumRecordsReadPerPage`` records (decision 0005), with a cursor after the last
    /// record delivered or read.
    func scanPage(
        type: RecordTypeRow, zones: [(CKRecordZone.ID, ZoneRow)], start: QueryCursorPayload?, pageSize: Int,
        desiredKeys: [String]?, matches: (StoredRecord, String, CKRecordZone.ID) throws -> Bool,
        fingerprint: Int64, _ txn: any BackendReadTransaction
    ) throws -> QueryPage {
        var records: [CKRecord] = []
        var bytes = QueryPageBytes(desiredKeys: desiredKeys)
        var read = 0
        var after: (Int64, String)? = start.flatMap {
            if case .keyset(let z, let n) = $0 { return (z, n) } else { return nil }
        }
        func cursor(_ zone: Int64, _ name: String) -> QueryPage {
            QueryPage(
                records: records,
                cursor: QueryCursorPayload.encode(.keyset(zone, name), context: self, fingerprint: fingerprint))
        }
        for (id, zone) in zones {
            if let after, zone.number < after.0 { continue }
            let prefix = keys.recordsPrefix(zone.number)
            var range = prefix.range
            if let after, after.0 == zone.number {
                range = KeyRange(from: prefix.appending(after.1).bytes + [0], to: range.upperBound)
            }
            var full = false
            var lastRead: String?
            try walkRecords(zone: zone.number, typeNumber: type.number, in: range, batch: pageSize + 1, txn) {
                name, stored in
                if read == Self.maximumRecordsReadPerPage { return false }
                read += 1
                lastRead = name
                guard try matches(stored, name, id) else { return true }
                if records.count == pageSize {
                    full = true
                    return false
                }
                records.append(
                    makeRecord(stored, id: CKRecord.ID(recordName: name, zoneID: id), desiredKeys: desiredKeys, txn))
                if bytes.add(stored) {
                    full = true
                    return false
                }
                return true
            }
            if full, let last = records.last?.recordID {
                // One more match exists, or the page's bytes are spent: after the last record.
                return cursor(last.zoneID == id ? zone.number : zoneNumber(of: last.zoneID, in: zones), last.recordName)
            }
            if read == Self.maximumRecordsReadPerPage, let lastRead {
                // The page's reading is spent: continue after the last record read.
                return cursor(zone.number, lastRead)
            }
            after = nil
        }
        return QueryPage(records: records, cursor: nil)
    }
}
