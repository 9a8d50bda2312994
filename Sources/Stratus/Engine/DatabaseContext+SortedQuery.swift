import Foundation
import StratusBackend
import StratusPredicate

/// Sorted queries over value indexes, paged with keyset cursors (decision 0005): the cost of a
/// page does not depend on how deep into the results it is.
///
/// The index of a field is built the first time a query sorts by it (every record of the
/// type, in every zone, in bounded batches: decision 0019.7), then maintained by every save. Entries group
/// records by the order-preserving encoding of the first sort key's value; a group is sorted
/// in memory by every sort key, then by zone and record name.
extension DatabaseContext {
    /// The field of `recordType` a sorted query can walk, building its index if needed; `nil`
    /// when the query must be sorted in memory (the field was never saved, or a location sort).
    func prepareSortIndex(recordType: String, sortKey: SortKey) throws -> String? {
        guard sortKey.relativeLocation == nil else { return nil }
        let field = IndexValue.canonicalField(sortKey.key)
        let isSystem = field.hasPrefix("___")
        let state: (exists: Bool, indexed: Bool, type: SchemaType?) = try engine.read { txn in
            guard let row = try loadRecordType(recordType, txn) else { return (false, false, nil) }
            guard let f = row.fields[field] else { return (true, false, isSystem ? .timestamp : nil) }
            return (true, f.indexed, f.type)
        }
        guard state.exists, let type = state.type else { return nil }
        guard IndexValue.isSortable(type) else {
            throw CKError.make(
                .invalidArguments,
                "field '\(sortKey.key)' of type \(type.name) of record type '\(recordType)' cannot be sorted")
        }
        if !state.indexed { try buildIndex(recordType: recordType, field: field, index: .value) }
        return field
    }

    /// The plan of an unsorted query (decision 0019), building its field's index if needed; `nil`
    /// when the query scans. A query continued from a planned cursor keeps the cursor's field.
    func prepareUnsortedPlan(
        _ expression: QueryPredicate, recordType: String, cursor: QueryCursorPayload?
    ) throws -> QueryPlan? {
        var pinned: String?
        var keyset = false
        switch cursor {
        case nil: break
        case .planned(let key, _)?: pinned = IndexValue.canonicalField(key)
        // A scan's cursor: the scan continues it, or a plan that walks in its order.
        case .keyset?: keyset = true
        default: return nil
        }
        guard let row = try engine.read({ try loadRecordType(recordType, $0) }) else { return nil }
        guard var plan = QueryPlan.make(for: expression, field: pinned, fieldType: { row.fields[$0]?.type })
        else {
            if pinned != nil { throw CKError.make(.invalidArguments, "the query cursor belongs to another query") }
            return nil
        }
        if pinned == nil && !schemaScope.growsJustInTime {
            // In production an index that is not ready is a declared one an import left to
            // build (stratusd's builder or `schema import` builds it; it may not have begun):
            // the query does without it — the ready components drive, or it scans (0020.8).
            let ready = plan.components.filter { row.fields[$0.field]?.isReady($0.index) == true }
            guard let first = ready.first else { return nil }
            plan = first.intersecting(Array(ready.dropFirst()))
        } else {
            for component in plan.components where row.fields[component.field]?.isReady(component.index) != true {
                try buildIndex(recordType: recordType, field: component.field, index: component.index)
            }
        }
        if keyset && !plan.walksInScanOrder { return nil }
        return plan
    }

    /// One page of a sorted query walked over the index of `field`; with `admits`, only the
    /// records it admits in the group they are met in (a record in several groups of the
    /// bounds is taken at one of them).
    ///
    /// A page reads at most about ``maximumRecordsReadPerPage`` records: a walk that has read
    /// that many without filling the page ends it short, so a filter on another field costs
    /// each request a bounded read, not the whole index (decision 0005). A group read whole
    /// is finished first, and the cursor is after its furthest record; a page never ends in
    /// the group read whole it resumed in, so a group larger than the budget is passed on the
    /// next page. A group read in pieces (``SortedIndexWalk``) ends the page at its 10,000th
    /// record.
    func sortedPage(
        type: RecordTypeRow, field: String, sortKeys: [SortKey], zones: [(CKRecordZone.ID, ZoneRow)],
        start: SortedCursorPosition?, pageSize: Int, desiredKeys: [String]?,
        matches: (StoredRecord, String, CKRecordZone.ID) throws -> Bool, fingerprint: Int64,
        bounds: [IndexBounds]? = nil, index: QueryPlan.Index = .value,
        admits: ((StoredRecord, [UInt8]) -> Bool)? = nil,
        cursor: (SortedCursorPosition) -> QueryCursorPayload = { .sorted($0) },
        _ txn: any BackendReadTransaction
    ) throws -> QueryPage {
        let number = index == .value ? type.fields[field]?.number : type.fields[field]?.matchIndex
        guard let fieldNumber = number else { return QueryPage(records: [], cursor: nil) }
        let ascending = sortKeys.first?.ascending ?? true
        // A reference sorts by its record name, then its zone's name, which the group (the name)
        // does not hold: in several zones, equal groups are not ties.
        let tiesAcrossZones = zones.count == 1 || index != .value || type.fields[field]?.type != .reference
        var walk = SortedIndexWalk(
            scanners: zones.map { id, zone in
                IndexGroupScanner(
                    zoneID: id, zoneNumber: zone.number,
                    prefix: keys.valueIndexPrefix(zone.number, type.number, fieldNumber).bytes,
                    reverse: !ascending, startGroup: start?.group, bounds: bounds)
            },
            ascending: ascending, start: start,
            readsInPieces: { [tiesAcrossZones] in
                Self.readsInPieces($0, sortKeyCount: sortKeys.count, tiesAcrossZones: tiesAcrossZones)
            })
        let canonical = sortKeys.map { IndexValue.canonicalField($0.key) }
        func item(_ stored: StoredRecord, _ member: SortedIndexWalk.Member, _ group: [UInt8]) -> SortedPageItem {
            let fields = canonical.map { IndexValue.sortValue(of: stored, field: $0) }
            return SortedPageItem(
                group: group, values: fields.map { $0?.predicateValue }, zone: member.zoneNumber, name: member.name,
                zoneID: member.zoneID, stored: stored, sortFields: fields)
        }
        func page(_ items: ArraySlice<SortedPageItem>, after last: SortedPageItem?) -> QueryPage {
            QueryPage(
                records: items.map {
                    makeRecord(
                        $0.stored, id: CKRecord.ID(recordName: $0.name, zoneID: $0.zoneID), desiredKeys: desiredKeys,
                        txn)
                },
                cursor: last.map {
                    let position = SortedCursorPosition(
                        group: $0.group, values: $0.sortFields, zone: $0.zone, name: $0.name)
                    return QueryCursorPayload.encode(cursor(position), context: self, fingerprint: fingerprint)
                })
        }

        var assembly = SortedPageAssembly(
            pageSize: pageSize, sortKeys: sortKeys, start: start, desiredKeys: desiredKeys)
        var ask = 0
        var slice = min(pageSize + 1, EntrySlices.firstSliceSize)
        while true {
            // The next groups, until they hold enough records to fill the page (before filtering);
            // their records are read by the positions the index entries carry (decision 0008),
            // in slices of one `getMany` (`EntrySlices`), not one read per record. When a filter
            // rejects what came, each round asks for twice as many (up to 512): a page of one in
            // a large group is not ten thousand reads of one record.
            ask = max(assembly.needed, min(2 * ask, 512))
            let groups = try walk.nextGroups(holding: ask, txn)
            if groups.isEmpty { break }
            var entries = EntrySlices(
                keys: groups.flatMap { $0.members.map { keys.change($0.zoneNumber, $0.position) } }, size: slice)
            defer { slice = entries.size }
            func stored(_ member: SortedIndexWalk.Member) throws -> StoredRecord {
                guard let bytes = try entries.next(txn), case let entry = try ChangeEntry(decoding: bytes),
                    entry.recordName == member.name, let stored = entry.record
                else { throw EngineError.corruptValue }
                return stored
            }
            func admitted(_ stored: StoredRecord, _ member: SortedIndexWalk.Member, _ group: [UInt8]) throws -> Bool {
                if let admits, !admits(stored, group) { return false }
                return try matches(stored, member.name, member.zoneID)
            }
            for group in groups {
                let end =
                    try group.inPieces
                    ? assembly.take(piece: group, stored: stored, admits: admitted, item: item)
                    : assembly.take(whole: group, stored: stored, admits: admitted, item: item)
                switch end {
                case .first(let count)?:
                    let delivered = assembly.records.prefix(count)
                    return page(delivered, after: delivered.last)
                case .after(let last)?: return page(assembly.records[...], after: last)
                case nil: continue
                }
            }
        }
        return page(assembly.records[...], after: nil)
    }

    /// Whether an index group can be read in pieces (``SortedIndexWalk``): its records tie on
    /// every sort key — there is at most one; the group is not a string the index may have cut
    /// at its first 200 bytes (whose records the sort tells apart); and, when
    /// `tiesAcrossZones` is false (references in several zones), never — so their order is
    /// the tie-break's, zone then name, which is the index's.
    static func readsInPieces(_ group: [UInt8], sortKeyCount: Int, tiesAcrossZones: Bool) -> Bool {
        if sortKeyCount == 0 { return true }
        guard sortKeyCount == 1, tiesAcrossZones else { return false }
        return !(group.first == OrderedKey.stringTag && group.count > IndexValue.maximumStringPrefix + 1)
    }
}

/// A record met in a sort index walk: its group, sort values, zone and name, and its stored form.
struct SortedPageItem {
    var group: [UInt8]
    var values: [PredicateValue?]
    var zone: Int64
    var name: String
    var zoneID: CKRecordZone.ID
    var stored: StoredRecord
    var sortFields: [FieldValue?]

    var position: MemorySortPosition { MemorySortPosition(values: values, zone: zone, name: name) }
}

/// Where a sorted query continues: the index group of the last record, its sort values, zone
/// and name.
struct SortedCursorPosition: Sendable {
    var group: [UInt8]
    var values: [FieldValue?]
    var zone: Int64
    var name: String
}
