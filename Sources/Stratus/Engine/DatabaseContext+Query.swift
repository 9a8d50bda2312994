import Foundation
import StratusBackend
import StratusPredicate

/// One page of query results.
package struct QueryPage: Sendable {
    package var records: [CKRecord]
    package var cursor: Data?

    /// A page of `records`, continued from `cursor` (the engine's cursor bytes) while more remain.
    package init(records: [CKRecord], cursor: Data?) {
        self.records = records
        self.cursor = cursor
    }
}

/// Query evaluation (decision 0005): the zone's record pointers are walked in name order, those
/// of the type kept (decision 0008), and their records filtered with the predicate; a query
/// without sort descriptors continues with a keyset cursor (zone number, record name).
extension DatabaseContext {
    /// The page size when the client sets no limit (CloudKit's `maximumResults`).
    package static let defaultQueryLimit = 100
    /// The most records one page returns.
    package static let maximumQueryLimit = 400
    /// The most records of the type a page that walks the zone reads, or a page that walks an
    /// index (`sortedPage`; a group read whole is finished first):
    /// past it, the page ends with what it found (even none) and a cursor after the last record
    /// read, so one request's work is bounded when few records match (decision 0005).
    package static let maximumRecordsReadPerPage = 10_000
    /// The most bytes of fields a page's records carry (``QueryPageBytes``): past them the page
    /// ends, with a cursor, as a batch of changes does at ``maximumChangesBatchBytes``.
    package static let maximumQueryPageBytes = 16 << 20

    package func query(
        _ query: CKQuery, zoneID: CKRecordZone.ID?, cursor: Data?, limit: Int, desiredKeys: [String]?
    ) throws -> QueryPage {
        let expression: QueryPredicate
        switch query.predicate.stratusPredicate {
        case .success(let parsed): expression = parsed
        case .failure(let error): throw CKError.make(.invalidArguments, "invalid query predicate: \(error.message)")
        }
        do throws(QueryPredicateError) { try expression.validateForCloudKit() } catch {
            throw CKError.make(
                error.code == .limitExceeded ? .limitExceeded : .invalidArguments,
                "invalid query predicate: \(error.message)")
        }
        try Validation.checkDesiredKeys(desiredKeys)
        let sortKeys = try query.sortKeys()
        if let problem = Validation.recordTypeProblem(query.recordType) {
            throw CKError.make(.invalidArguments, problem)
        }
        if zoneID == nil && scope == .shared {
            throw CKError.make(.invalidArguments, "queries in the shared database need a zone ID")
        }
        try checkQueryAgainstSchema(expression, sortKeys: sortKeys, recordType: query.recordType)
        let pageSize = limit > 0 ? min(limit, DatabaseContext.maximumQueryLimit) : DatabaseContext.defaultQueryLimit
        let fingerprint = QueryCursorPayload.fingerprint(query, zoneID: zoneID)
        let start = try cursor.map { try QueryCursorPayload.decode($0, context: self, fingerprint: fingerprint) }
        let now = Date()
        let indexedField = try sortKeys.first.flatMap {
            try prepareSortIndex(recordType: query.recordType, sortKey: $0)
        }
        let unsortedPlan =
            sortKeys.isEmpty ? try prepareUnsortedPlan(expression, recordType: query.recordType, cursor: start) : nil

        return try engine.read { txn in
            guard let type = try loadRecordType(query.recordType, txn) else {
                // A type of the environment's schema that this database has no record of.
                if try engine.environmentSchema(schemaScope, txn).recordTypes[query.recordType] != nil {
                    return QueryPage(records: [], cursor: nil)
                }
                throw CKError.make(.unknownItem, "Did not find record type: \(query.recordType)")
            }
            var zones: [(CKRecordZone.ID, ZoneRow)] = []
            if let zoneID {
                guard let row = try loadZone(zoneID, txn) else {
                    throw CKError.make(.zoneNotFound, "Zone '\(zoneID.zoneName)' does not exist")
                }
                zones = [(zoneID, row)]
            } else {
                if let row = try loadZone(.default, txn) { zones.append((.default, row)) }
                for (id, result) in try fetchZones(in: txn) where !id.isDefaultZone {
                    zones.append((id, result))
                }
                zones.sort { $0.1.number < $1.1.number }
            }

            func matches(_ stored: StoredRecord, _ name: String, _ zoneID: CKRecordZone.ID) throws -> Bool {
                let subject = StoredRecordSubject(record: stored, name: name, zoneID: zoneID)
                do throws(QueryPredicateError) {
                    return try expression.evaluateStrictly(subject, now: now)
                } catch {
                    throw CKError.make(.invalidArguments, "invalid query predicate: \(error.message)")
                }
            }

            if let unsortedPlan, unsortedPlan.walksInScanOrder {
                var after: (zone: Int64, name: String)?
                switch start {
                case .keyset(let zone, let name)?: after = (zone: zone, name: name)
                case nil: break
                default: throw CKError.make(.invalidArguments, "the query cursor belongs to another query")
                }
                return try scanOrderPage(
                    type: type, plan: unsortedPlan, zones: zones, after: after, pageSize: pageSize,
                    desiredKeys: desiredKeys, matches: matches, fingerprint: fingerprint, txn)
            }

            if let unsortedPlan {
                let position: SortedCursorPosition?
                switch start {
                case .planned(_, let p)?: position = p
                case nil: position = nil
                default: throw CKError.make(.invalidArguments, "the query cursor belongs to another query")
                }
                // In the driving index's order: the order of the query sorted by that field; in a
                // match index's group (values equal as CloudKit compares them), by zone and name —
                // so an equality is answered in the scan's order.
                let order = unsortedPlan.index == .value ? [SortKey(key: unsortedPlan.key, ascending: true)] : []
                var admits: ((StoredRecord, [UInt8]) -> Bool)?
                if unsortedPlan.walk == .firstGroup { admits = { unsortedPlan.admitsFirstGroup($0, $1) } }
                return try sortedPage(
                    type: type, field: unsortedPlan.field, sortKeys: order,
                    zones: zones, start: position, pageSize: pageSize, desiredKeys: desiredKeys, matches: matches,
                    fingerprint: fingerprint, bounds: unsortedPlan.bounds, index: unsortedPlan.index,
                    admits: admits,
                    cursor: { .planned(unsortedPlan.key, $0) },
                    txn)
            }

            if sortKeys.isEmpty {
                return try scanPage(
                    type: type, zones: zones, start: start, pageSize: pageSize, desiredKeys: desiredKeys,
                    matches: matches, fingerprint: fingerprint, txn)
            }

            if let indexedField {
                let position: SortedCursorPosition?
                switch start {
                case .sorted(let p)?: position = p
                case nil: position = nil
                default: throw CKError.make(.invalidArguments, "the query cursor belongs to another query")
                }
                // A range on the sort field bounds the walk (decision 0019.3).
                let plan = QueryPlan.make(for: expression, sortField: indexedField) { type.fields[$0]?.type }
                return try sortedPage(
                    type: type, field: indexedField, sortKeys: sortKeys, zones: zones, start: position,
                    pageSize: pageSize, desiredKeys: desiredKeys, matches: matches, fingerprint: fingerprint,
                    bounds: plan?.bounds, txn)
            }

            // Sorted in memory (location sorts, fields no record has an index for).
            return try memorySortedPage(
                type: type, sortKeys: sortKeys, zones: zones, start: start, pageSize: pageSize,
                desiredKeys: desiredKeys, matches: matches, fingerprint: fingerprint, txn)
        }
    }

    func zoneNumber(of zoneID: CKRecordZone.ID, in zones: [(CKRecordZone.ID, ZoneRow)]) -> Int64 {
        zones.first { $0.0 == zoneID }?.1.number ?? 0
    }

    /// Every custom zone with its row, inside a transaction.
    func fetchZones(in txn: any BackendReadTransaction) throws -> [(CKRecordZone.ID, ZoneRow)] {
        var result: [(CKRecordZone.ID, ZoneRow)] = []
        var range = keys.zones
        while true {
            let page = try txn.scan(range, limit: 256)
            for pair in page {
                var reader = OrderedKeyReader(pair.key, from: keys.prefix.bytes.count + 1)
                let id = CKRecordZone.ID(zoneName: try reader.readString(), ownerName: try reader.readString())
                result.append((id, try ZoneRow(decoding: pair.value)))
            }
            guard let last = page.last, page.count == 256 else { break }
            range = KeyRange(from: last.key + [0], to: range.upperBound)
        }
        return result
    }
}

/// A query cursor's authenticated position:
/// `"Q" | version 1 | store ID (16) | container (8) | scope (1) | query fingerprint (8)
///  | kind (1) | position … | tag (16)`.
enum QueryCursorPayload {
    case keyset(Int64, String)
    /// A query sorted in memory, by the position of its last page's end (Stratus before
    /// 2026-11-27); still read, no longer made.
    case offset(Int64)
    case sorted(SortedCursorPosition)
    /// An unsorted query read through the index of the field `key` names (decision 0019.3).
    case planned(String, SortedCursorPosition)
    /// A query sorted in memory, after its last delivered match.
    case memorySorted(MemorySortPosition)

    static let magic: UInt8 = 0x51
    static let version: UInt8 = 1

    /// A hash of what the cursor continues: the record type, predicate, sort and zone.
    static func fingerprint(_ query: CKQuery, zoneID: CKRecordZone.ID?) -> Int64 {
        var w = ByteWriter()
        w.write(query.recordType)
        w.write(query.predicate.stratusPredicateFormat)
        for key in (try? query.sortKeys()) ?? [] {
            w.write(key.key)
            w.write(key.ascending ? UInt8(1) : 0)
            if let location = key.relativeLocation {
                w.write(location.latitude)
                w.write(location.longitude)
            }
        }
        w.write(zoneID?.zoneName ?? "")
        w.write(zoneID?.ownerName ?? "")
        return Int64(bitPattern: SipHash.hash(w.bytes, k0: 0x5354_5241_5455_5331, k1: 0x4355_5253_4f52_3031))
    }

    static func encode(_ position: QueryCursorPayload, context: DatabaseContext, fingerprint: Int64) -> Data {
        var w = ByteWriter()
        w.write(magic)
        w.write(version)
        w.writeRaw(context.engine.storeID)
        w.write(context.containerNumber)
        w.write(UInt8(context.scope.rawValue))
        w.write(fingerprint)
        switch position {
        case .keyset(let zone, let name):
            w.write(UInt8(1))
            w.write(zone)
            w.write(name)
        case .offset(let offset):
            w.write(UInt8(2))
            w.write(offset)
        case .sorted(let position):
            w.write(UInt8(3))
            write(position, to: &w)
        case .planned(let key, let position):
            w.write(UInt8(4))
            w.write(key)
            write(position, to: &w)
        case .memorySorted(let position):
            w.write(UInt8(5))
            w.writeVarint(position.values.count)
            for value in position.values { PredicateValueCodec.write(optional: value, to: &w) }
            w.write(position.zone)
            w.write(position.name)
        }
        w.writeRaw(SipHash.tag(w.bytes, key: context.engine.macKey))
        return Data(w.bytes)
    }

    private static func write(_ position: SortedCursorPosition, to w: inout ByteWriter) {
        w.write(bytes: position.group)
        w.writeVarint(position.values.count)
        for value in position.values {
            if let value {
                w.write(UInt8(1))
                FieldValueCodec.write(value, to: &w)
            } else {
                w.write(UInt8(0))
            }
        }
        w.write(position.zone)
        w.write(position.name)
    }

    static func decode(_ data: Data, context: DatabaseContext, fingerprint: Int64) throws -> QueryCursorPayload {
        let bytes = Array(data)
        let invalid = CKError.make(.invalidArguments, "the query cursor is not valid for this store and query")
        guard bytes.count > 16 + 2, bytes[0] == magic, bytes[1] == version else { throw invalid }
        let body = Array(bytes[0..<(bytes.count - 16)])
        guard SipHash.tagsEqual(Array(bytes[(bytes.count - 16)...]), SipHash.tag(body, key: context.engine.macKey))
        else {
            throw CKError.make(.invalidArguments, "the query cursor is damaged, altered, or from another store")
        }
        var r = ByteReader(body)
        do {
            _ = try r.readRaw(2)
            guard try r.readRaw(16) == context.engine.storeID,
                try r.readInt64() == context.containerNumber,
                try r.readByte() == UInt8(context.scope.rawValue)
            else { throw CKError.make(.invalidArguments, "the query cursor belongs to another database") }
            guard try r.readInt64() == fingerprint else {
                throw CKError.make(.invalidArguments, "the query cursor belongs to another query")
            }
            switch try r.readByte() {
            case 1: return .keyset(try r.readInt64(), try r.readString())
            case 2: return .offset(try r.readInt64())
            case 3: return .sorted(try readPosition(&r, invalid: invalid))
            case 4: return .planned(try r.readString(), try readPosition(&r, invalid: invalid))
            case 5:
                let count = try r.readVarint()
                guard count <= r.remaining else { throw invalid }
                let values = try (0..<count).map { _ in try PredicateValueCodec.readOptional(from: &r) }
                return .memorySorted(
                    MemorySortPosition(values: values, zone: try r.readInt64(), name: try r.readString()))
            default: throw invalid
            }
        } catch let error as CKError {
            throw error
        } catch {
            throw invalid
        }
    }

    private static func readPosition(_ r: inout ByteReader, invalid: CKError) throws -> SortedCursorPosition {
        let group = try r.readBytes()
        let count = try r.readVarint()
        guard count <= r.remaining else { throw invalid }
        var values: [FieldValue?] = []
        for _ in 0..<count {
            values.append(try r.readByte() == 1 ? try FieldValueCodec.read(from: &r) : nil)
        }
        return SortedCursorPosition(group: group, values: values, zone: try r.readInt64(), name: try r.readString())
    }
}
