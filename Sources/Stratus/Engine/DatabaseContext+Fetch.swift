import Foundation
import StratusBackend

/// Fetching records by ID (`CKFetchRecordsOperation`).
extension DatabaseContext {
    /// Fetches records by ID in one read transaction, so every record comes from the same
    /// snapshot of the store.
    ///
    /// - Each ID gets its own result, in the order of `ids`. A missing zone is checked before
    ///   the record: an ID in a zone that does not exist fails with `zoneNotFound` ("Zone 'x'
    ///   does not exist"), an ID in an existing zone without a record with `unknownItem`
    ///   ("Record 'x' does not exist").
    /// - Duplicate IDs: CloudKit reports each record ID once (its completion dictionary is keyed
    ///   by ID, and per-record callbacks come once per record), so an ID listed several times
    ///   is fetched and answered once, at the position of its first occurrence.
    /// - `desiredKeys`: `nil` returns every field, `[]` only the system fields.
    ///
    /// - Bytes: the records' fields (those of `desiredKeys`, names and values, as the 1 MB
    ///   record limit counts them) hold at most ``maximumFetchBytes``. The entries are read in
    ///   slices (``EntrySlices``, ``firstFetchSlice`` first) and counted as they come, so a fetch
    ///   past it is refused having read little more than the budget: 400 records of 1 MB would
    ///   otherwise be 400 MB held for one answer. `CKFetchRecordsOperation` splits such a fetch
    ///   and asks again for fewer (``FetchRecordsParts``); a Web Services client gets the error.
    ///
    /// - Throws: `limitExceeded` when the request lists more than 400 IDs (duplicates
    ///   included: the limit is on the request's size), or when its records hold more than
    ///   ``maximumFetchBytes``; or a store failure as a `CKError`.
    package func fetchRecords(
        _ ids: [CKRecord.ID], desiredKeys: [String]?
    ) throws -> [(CKRecord.ID, Result<CKRecord, CKError>)] {
        try Validation.checkItemCount(ids.count)
        try Validation.checkDesiredKeys(desiredKeys)
        var seen = Set<CKRecord.ID>()
        let unique = ids.filter { seen.insert($0).inserted }
        return try engine.read { txn in
            let preloaded = try PreloadedRows(firstReads(of: unique), txn)
            var zones: [CKRecordZone.ID: ZoneRow?] = [:]
            var zoneRows: [ZoneRow?] = []
            zoneRows.reserveCapacity(unique.count)
            var lookups: [(zone: Int64, name: String)] = []
            lookups.reserveCapacity(unique.count)
            for id in unique {
                let zoneRow: ZoneRow?
                if let cached = zones[id.zoneID] {
                    zoneRow = cached
                } else {
                    zoneRow = try loadZone(id.zoneID, txn, preloaded: preloaded)
                    zones[id.zoneID] = zoneRow
                }
                zoneRows.append(zoneRow)
                if let zoneRow { lookups.append((zoneRow.number, id.recordName)) }
            }
            // Two reads for the whole request: the pointers (with the zones' rows when their
            // numbers were known), then the entries (decision 0008).
            var bytes = QueryPageBytes(desiredKeys: desiredKeys, budget: Self.maximumFetchBytes)
            var counted = 0
            var records = try loadRecords(lookups, txn, preloaded: preloaded, firstSlice: Self.firstFetchSlice) {
                counted += 1
                if bytes.overflows(with: $0) { throw Self.fetchTooLarge(records: counted, bytes: bytes.total) }
            }.makeIterator()
            return zip(unique, zoneRows).map { id, zoneRow in
                guard zoneRow != nil else {
                    return (id, .failure(.make(.zoneNotFound, "Zone '\(id.zoneID.zoneName)' does not exist")))
                }
                guard let stored = records.next() ?? nil else {
                    return (id, .failure(.make(.unknownItem, "Record '\(id.recordName)' does not exist")))
                }
                return (id, .success(makeRecord(stored, id: id, desiredKeys: desiredKeys, txn)))
            }
        }
    }

    /// The most bytes of fields one fetch by ID returns (as ``maximumQueryPageBytes``).
    package static let maximumFetchBytes = 16 << 20
    /// The entries a fetch reads in its first slice: a fetch of 32 records or fewer (most) is
    /// one read, and a fetch of records of 1 MB holds at most 32 MB of entries before it knows.
    static let firstFetchSlice = 32

    /// The refusal of a fetch whose first `records` records hold `bytes` bytes, past
    /// ``maximumFetchBytes``.
    static func fetchTooLarge(records: Int, bytes: Int) -> CKError {
        CKError.make(
            .limitExceeded,
            "The records of this request hold more than \(maximumFetchBytes >> 20) MiB of fields (the first \(records) hold \(bytes) bytes); fetch fewer records per request, or fewer desiredKeys"
        )
    }

    /// What a fetch reads first, together (``PreloadedRows``): its zones' rows, and the pointers
    /// of its records in the zones whose numbers this process has seen (``ZoneNumberHints``).
    private func firstReads(of ids: [CKRecord.ID]) -> [[UInt8]] {
        var reads: [[UInt8]] = []
        var numbers: [CKRecordZone.ID: Int64?] = [:]
        for id in ids {
            let number: Int64?
            if let known = numbers[id.zoneID] {
                number = known
            } else {
                let zoneKey = keys.zone(id.zoneID.zoneName, id.zoneID.ownerName)
                reads.append(zoneKey)
                number = engine.zoneNumbers.number(zoneKey)
                numbers[id.zoneID] = number
            }
            if let number { reads.append(keys.record(number, id.recordName)) }
        }
        return reads
    }
}
