import Foundation
import StratusBackend

/// Unsorted queries whose plan is a union or an intersection of index groups (decision 0019.8,
/// .9): `list IN {a, b}`, a search of several words, `list CONTAINS {a, b}`,
/// `self CONTAINS 'a' AND self CONTAINS 'b'`, `tags IN {a, b} AND k == 5`. Each zone's groups
/// are merged by record name, so the records come in the scan's order (zone number, then
/// name), each once, and the page ends where the scan's would: its cursor is the scan's keyset
/// cursor.
extension DatabaseContext {
    /// One page of `plan`, continued after `after` (zone number, record name).
    func scanOrderPage(
        type: RecordTypeRow, plan: QueryPlan, zones: [(CKRecordZone.ID, ZoneRow)], after: (zone: Int64, name: String)?,
        pageSize: Int, desiredKeys: [String]?, matches: (StoredRecord, String, CKRecordZone.ID) throws -> Bool,
        fingerprint: Int64, _ txn: any BackendReadTransaction
    ) throws -> QueryPage {
        // Every component's requirements, each with the number of the index it reads.
        var requirements: [(number: Int64, bounds: [IndexBounds])] = []
        for component in plan.components {
            let field = type.fields[component.field]
            guard let number = component.index == .value ? field?.number : field?.matchIndex else {
                return QueryPage(records: [], cursor: nil)
            }
            requirements += component.requirements.map { (number, $0) }
        }
        var records: [CKRecord] = []
        var pageBytes = QueryPageBytes(desiredKeys: desiredKeys)
        var slice = min(pageSize + 1, EntrySlices.firstSliceSize)
        for (id, zone) in zones {
            if let after, zone.number < after.zone { continue }
            var merger = IndexNameWalk(
                requirements: requirements.map {
                    (keys.valueIndexPrefix(zone.number, type.number, $0.number).bytes, $0.bounds)
                },
                after: after.flatMap { $0.zone == zone.number ? $0.name : nil })
            while true {
                // Enough candidates to fill the page and see one more match, read in one `getMany`
                // of at most a slice (`EntrySlices`: fewer while the records are large).
                var batch: [IndexUnionMerger.Entry] = []
                while batch.count < min(pageSize + 1 - records.count, slice), let next = try merger.next(txn) {
                    batch.append(next)
                }
                if batch.isEmpty { break }
                let entries = try txn.getMany(batch.map { keys.change(zone.number, $0.position) })
                slice = EntrySlices.nextSize(
                    after: entries.reduce(0) { $0 + ($1?.count ?? 0) }, size: slice, largest: 512)
                for (member, bytes) in zip(batch, entries) {
                    guard let bytes, case let entry = try ChangeEntry(decoding: bytes),
                        entry.recordName == member.name, let stored = entry.record
                    else { throw EngineError.corruptValue }
                    guard try matches(stored, member.name, id) else { continue }
                    if records.count == pageSize {
                        // One more match exists: the scan's cursor, after the page's last record.
                        let last = records[records.count - 1].recordID
                        let lastZone =
                            last.zoneID == id ? zone.number : zones.first { $0.0 == last.zoneID }?.1.number ?? 0
                        return QueryPage(
                            records: records,
                            cursor: QueryCursorPayload.encode(
                                .keyset(lastZone, last.recordName), context: self, fingerprint: fingerprint))
                    }
                    records.append(
                        makeRecord(
                            stored, id: CKRecord.ID(recordName: member.name, zoneID: id), desiredKeys: desiredKeys, txn)
                    )
                    if pageBytes.add(stored) {
                        // The page's bytes are spent: the scan's cursor, after this record.
                        return QueryPage(
                            records: records,
                            cursor: QueryCursorPayload.encode(
                                .keyset(zone.number, member.name), context: self, fingerprint: fingerprint))
                    }
                }
            }
        }
        return QueryPage(records: records, cursor: nil)
    }
}
