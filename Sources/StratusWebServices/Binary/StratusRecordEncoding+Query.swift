import Foundation
package import Stratus

/// `records/lookup` and `records/query` answers in the binary record encoding (decision
/// 0018.10). A lookup answer has the form of a `records/modify` answer (``ModifyAnswerWriter``):
/// one item per requested name, 1 and the record or 3 and its error dictionary's JSON bytes.
/// A query answer carries its continuation marker and records of any zone.
extension StratusRecordEncoding {
    /// Reads a `records/lookup` answer to `count` names in `zoneID`: a ``ModifyAnswerWriter``'s
    /// form whose items are records or errors, never deletions.
    package static func readLookupAnswer(_ bytes: [UInt8], zoneID: CKRecordZone.ID, count: Int)
        throws(RecordWireError) -> [ModifyAnswerItem]
    {
        let items = try readModifyAnswer(bytes, zones: Array(repeating: zoneID, count: count))
        for item in items {
            if case .deleted = item { throw RecordWireError("a lookup answer's item is a deletion") }
        }
        return items
    }

    /// Writes a `records/query` answer: the version, the continuation marker (the engine's
    /// cursor bytes, 0 when no more remain), the number of records, then each: its zone — the
    /// index of a zone named before, or the next index followed by the zone's name and owner
    /// record name — and the record.
    package struct QueryAnswerWriter {
        private var out: RecordWireWriter
        private var zones: [CKRecordZone.ID: Int] = [:]
        private let translator: WSRecordTranslator

        /// An answer of `count` records, continued from `cursor`, its zone owners written by
        /// `translator` (as a JSON answer writes them).
        package init(cursor: Data?, count: Int, translator: WSRecordTranslator) {
            out = RecordWireWriter(capacity: 64 + 256 * count)
            self.translator = translator
            out.byte(version)
            out.optionalBytes(cursor)
            out.varint(count)
        }

        /// The answer's bytes.
        package var bytes: [UInt8] { out.bytes }

        /// A record, with the fields of `desiredKeys` (all for `nil`).
        package mutating func record(_ record: CKRecord, desiredKeys: [String]?) {
            let zoneID = record.recordID.zoneID
            if let index = zones[zoneID] {
                out.varint(index)
            } else {
                out.varint(zones.count)
                zones[zoneID] = zones.count
                out.string(zoneID.zoneName)
                out.string(translator.ownerRecordName(of: zoneID))
            }
            out.record(record, desiredKeys: desiredKeys)
        }
    }

    /// Reads an answer ``QueryAnswerWriter`` wrote, each zone made by `zoneID` from its name and
    /// owner record name.
    package static func readQueryAnswer(_ bytes: [UInt8], zoneID: (WSZoneID) -> CKRecordZone.ID)
        throws(RecordWireError) -> QueryPage
    {
        var reader = RecordWireReader(bytes)
        try checkVersion(&reader)
        let cursor = try reader.optionalBytes()
        let count = try reader.varint()
        guard count <= bytes.count else { throw RecordWireError("more records than bytes") }
        var zones: [CKRecordZone.ID] = []
        var records: [CKRecord] = []
        records.reserveCapacity(count)
        for index in 0..<count {
            let zone = try reader.varint()
            if zone == zones.count {
                let name = try reader.string()
                let owner = try reader.string()
                zones.append(zoneID(WSZoneID(zoneName: name, ownerRecordName: owner)))
            } else if zone > zones.count {
                throw RecordWireError("records[\(index)]: zone \(zone) is not one of the \(zones.count) named")
            }
            records.append(try reader.record(in: zones[zone]))
        }
        try checkEnd(reader)
        return QueryPage(records: records, cursor: cursor)
    }
}
