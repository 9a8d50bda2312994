import Foundation
import StratusBackend

/// Where a query sorted in memory continues: after the match with these sort values, in this
/// zone, with this name (the order is total: sort values, then zone, then name).
struct MemorySortPosition: Sendable {
    var values: [PredicateValue?]
    var zone: Int64
    var name: String
}

extension DatabaseContext {
    /// One page of a query sorted in memory (location sorts, fields no record has an index
    /// for): every match is read, but only the page's best `pageSize + 1` are kept, as sort
    /// values and names, and only the page's records are loaded afterwards. The cursor is the
    /// last delivered match (``MemorySortPosition``), so a page's memory follows the page, not
    /// the matches, and a record saved while a client pages moves nothing already delivered. A
    /// cursor of the earlier offset form (`start` `.offset`) is still read.
    func memorySortedPage(
        type: RecordTypeRow, sortKeys: [SortKey], zones: [(CKRecordZone.ID, ZoneRow)], start: QueryCursorPayload?,
        pageSize: Int, desiredKeys: [String]?, matches: (StoredRecord, String, CKRecordZone.ID) throws -> Bool,
        fingerprint: Int64, _ txn: any BackendReadTransaction
    ) throws -> QueryPage {
        var selection = MemorySortSelection<CKRecordZone.ID>(sortKeys: sortKeys, keep: pageSize + 1)
        switch start {
        case .memorySorted(let position)? where position.values.count == sortKeys.count:
            selection.after = position
        case .offset(let offset)?: selection.skip = Int(clamping: offset)
        case nil: break
        default: throw CKError.make(.invalidArguments, "the query cursor belongs to another query")
        }
        for (id, zone) in zones {
            try walkRecords(zone: zone.number, typeNumber: type.number, in: keys.records(zone.number), batch: 256, txn)
            {
                name, stored in
                guard try matches(stored, name, id) else { return true }
                let subject = StoredRecordSubject(record: stored, name: name, zoneID: id)
                selection.consider(
                    MemorySortPosition(
                        values: sortKeys.map { subject.predicateValue(forKey: $0.key) }, zone: zone.number, name: name),
                    id)
                return true
            }
        }
        var (page, more) = selection.page(size: pageSize)
        let records = try loadPage(&page, more: &more, desiredKeys: desiredKeys, txn)
        let cursor = (more ? page.last : nil).map {
            QueryCursorPayload.encode(.memorySorted($0.position), context: self, fingerprint: fingerprint)
        }
        return QueryPage(records: records, cursor: cursor)
    }
}

extension DatabaseContext {
    /// The records of a page sorted in memory, read in slices (``EntrySlices``' sizes: fewer
    /// while the records are large); the page is cut after the record that spends its bytes
    /// (``QueryPageBytes``), and `more` is then set.
    fileprivate func loadPage(
        _ page: inout [(position: MemorySortPosition, payload: CKRecordZone.ID)], more: inout Bool,
        desiredKeys: [String]?, _ txn: any BackendReadTransaction
    ) throws -> [CKRecord] {
        var records: [CKRecord] = []
        records.reserveCapacity(page.count)
        var bytes = QueryPageBytes(desiredKeys: desiredKeys)
        var size = EntrySlices.firstSliceSize
        while records.count < page.count {
            let slice = page[records.count..<min(records.count + size, page.count)]
            let stored = try loadRecords(slice.map { (zone: $0.position.zone, name: $0.position.name) }, txn)
            var read = 0
            for (entry, record) in zip(slice, stored) {
                guard let record else { throw EngineError.corruptValue }
                read += record.dataSize
                records.append(
                    makeRecord(
                        record, id: CKRecord.ID(recordName: entry.position.name, zoneID: entry.payload),
                        desiredKeys: desiredKeys, txn))
                if bytes.add(record) {
                    more = more || records.count < page.count
                    page.removeLast(page.count - records.count)
                    return records
                }
            }
            size = EntrySlices.nextSize(after: read, size: size, largest: 512)
        }
        return records
    }
}

/// The best matches seen so far of a query sorted in memory, or of one group of a sort index
/// (``DatabaseContext/sortedPage(type:field:sortKeys:zones:start:pageSize:desiredKeys:matches:fingerprint:bounds:index:admits:cursor:_:)``),
/// each with a payload: at most twice `keep` + `skip` held, cut back to the best `keep` +
/// `skip` when full, so selecting a page among n matches takes O(n log k) time and O(k) memory.
struct MemorySortSelection<Payload> {
    let sortKeys: [SortKey]
    /// How many of the best to keep: a page and one more (whether more come).
    let keep: Int
    /// The best to pass over first (a cursor of the offset form).
    var skip = 0
    /// Only matches after this one count (the cursor's).
    var after: MemorySortPosition?
    private var held: [(position: MemorySortPosition, payload: Payload)] = []
    /// The worst match kept after the last cut: nothing after it can be among the best.
    private var worstKept: MemorySortPosition?

    init(sortKeys: [SortKey], keep: Int) {
        self.sortKeys = sortKeys
        self.keep = keep
    }

    /// Takes a match into account.
    mutating func consider(_ position: MemorySortPosition, _ payload: @autoclosure () throws -> Payload) rethrows {
        if let after, !precedes(after, position) { return }
        if let worstKept, !precedes(position, worstKept) { return }
        held.append((position, try payload()))
        if held.count >= 2 * (keep + skip) { cut() }
    }

    /// The page: up to `size` matches in order, past the skipped ones, and whether more follow.
    mutating func page(size: Int) -> (page: [(position: MemorySortPosition, payload: Payload)], more: Bool) {
        cut()
        let page = Array(held.dropFirst(skip).prefix(size))
        return (page, held.count > skip + size)
    }

    private mutating func cut() {
        let sortKeys = sortKeys
        held.sort { Self.precedes($0.position, $1.position, by: sortKeys) }
        if held.count > keep + skip {
            held.removeLast(held.count - keep - skip)
            worstKept = held.last?.position
        }
    }

    /// Whether `a` comes before `b`: by the sort keys, then zone and name.
    func precedes(_ a: MemorySortPosition, _ b: MemorySortPosition) -> Bool {
        Self.precedes(a, b, by: sortKeys)
    }

    static func precedes(_ a: MemorySortPosition, _ b: MemorySortPosition, by sortKeys: [SortKey]) -> Bool {
        for (index, key) in sortKeys.enumerated() {
            let order = key.compare(a.values[index], b.values[index])
            if order != .orderedSame { return order == .orderedAscending }
        }
        return (a.zone, a.name) < (b.zone, b.name)
    }
}
