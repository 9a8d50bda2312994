import Foundation
package import Stratus

/// `records/modify` in the binary record encoding: the request (the same operations as the
/// JSON body's, each record with the fields it sends) and the answer (one item per operation,
/// in request order).
extension StratusRecordEncoding {
    /// The operation types, by the byte that names them.
    static let operationTypes = [
        "create", "update", "forceUpdate", "replace", "forceReplace", "delete", "forceDelete",
    ]

    /// Writes a `records/modify` request: the version, `atomic`, `clientChangeTokenData`, the
    /// number of operations, then each: its type's byte (1-based in ``operationTypes``), the
    /// change tag for `update`, `replace` and `delete`, the zone's name and owner record name,
    /// and the record to save (``RecordWireWriter/saveRecord(_:keys:)``) or the name to delete.
    package struct ModifyRequestWriter {
        private var out: RecordWireWriter

        /// A request of `count` operations.
        package init(atomic: Bool, clientChangeTokenData: Data?, count: Int) {
            out = RecordWireWriter(capacity: 64 + 192 * count)
            out.byte(version)
            out.byte(atomic ? 1 : 0)
            out.optionalBytes(clientChangeTokenData)
            out.varint(count)
        }

        /// The request's bytes.
        package var bytes: [UInt8] { out.bytes }

        /// A save of `record` as `operationType` (`create`, `update`, …), sending `keys`, in
        /// the zone whose owner record name is `owner`.
        package mutating func save(_ record: CKRecord, operationType: String, keys: [String], owner: String) {
            let kind = (operationTypes.firstIndex(of: operationType) ?? 0) + 1
            out.byte(UInt8(kind))
            if operationType == "update" || operationType == "replace" { out.string(record.recordChangeTag ?? "") }
            zone(record.recordID.zoneID, owner: owner)
            out.saveRecord(record, keys: keys)
        }

        /// A delete of `id`: `delete` with `changeTag`, or `forceDelete` without.
        package mutating func delete(_ id: CKRecord.ID, changeTag: String?, owner: String) {
            if let changeTag {
                out.byte(6)
                out.string(changeTag)
            } else {
                out.byte(7)
            }
            zone(id.zoneID, owner: owner)
            out.string(id.recordName)
        }

        private mutating func zone(_ zoneID: CKRecordZone.ID, owner: String) {
            out.string(zoneID.zoneName)
            out.string(owner)
        }
    }

    /// A `records/modify` request read: what the JSON body's operations would give.
    package struct ModifyRequestBody {
        /// One operation.
        package enum Operation {
            /// A record to save (its sent fields among its changed keys) with its operation type.
            case save(CKRecord, operationType: String, changeTag: String?)
            /// A record to delete: `delete` with a change tag, `forceDelete` without.
            case delete(CKRecord.ID, changeTag: String?)
        }
        package var atomic: Bool
        package var clientChangeTokenData: Data?
        package var operations: [Operation]
    }

    /// The number of operations a request ``ModifyRequestWriter`` wrote says it holds, read
    /// without reading them: a server refuses too many before decoding millions of tiny ones.
    package static func modifyRequestOperationCount(_ bytes: [UInt8]) throws(RecordWireError) -> Int {
        var reader = RecordWireReader(bytes)
        try checkVersion(&reader)
        _ = try reader.byte()
        _ = try reader.optionalBytes()
        return try reader.varint()
    }

    /// Reads a request ``ModifyRequestWriter`` wrote, each zone made by `zoneID` from its name
    /// and owner record name.
    package static func readModifyRequest(
        _ bytes: [UInt8], zoneID: (WSZoneID) -> CKRecordZone.ID
    ) throws(RecordWireError) -> ModifyRequestBody {
        var reader = RecordWireReader(bytes)
        try checkVersion(&reader)
        let atomic = try reader.byte() == 1
        let clientData = try reader.optionalBytes()
        var body = ModifyRequestBody(atomic: atomic, clientChangeTokenData: clientData, operations: [])
        let count = try reader.varint()
        guard count <= bytes.count else { throw RecordWireError("more operations than bytes") }
        body.operations.reserveCapacity(count)
        for index in 0..<count {
            do throws(RecordWireError) {
                body.operations.append(try readOperation(&reader, zoneID: zoneID))
            } catch {
                throw RecordWireError("operations[\(index)]: \(error.reason)")
            }
        }
        try checkEnd(reader)
        return body
    }

    /// One operation of a binary `records/modify` request.
    private static func readOperation(_ reader: inout RecordWireReader, zoneID: (WSZoneID) -> CKRecordZone.ID)
        throws(RecordWireError) -> ModifyRequestBody.Operation
    {
        let kind = Int(try reader.byte())
        guard (1...operationTypes.count).contains(kind) else {
            throw RecordWireError("operation type \(kind) is not 1 to \(operationTypes.count)")
        }
        let type = operationTypes[kind - 1]
        var tag: String?
        if [2, 4, 6].contains(kind) { tag = try reader.string() }
        let zoneName = try reader.string()
        let owner = try reader.string()
        let zone = zoneID(WSZoneID(zoneName: zoneName, ownerRecordName: owner))
        if kind >= 6 {
            let name = try reader.string()
            return .delete(CKRecord.ID(recordName: name, zoneID: zone), changeTag: tag)
        }
        let record = try reader.saveRecord(in: zone)
        return .save(record, operationType: type, changeTag: tag)
    }

    /// Writes a `records/modify` answer: the version, the number of items, then each: 1 and
    /// the saved record, 2 for a deleted record, or 3 and the JSON bytes of its error
    /// dictionary (the same dictionary as in a JSON answer).
    package struct ModifyAnswerWriter {
        private var out: RecordWireWriter

        /// An answer of `count` items.
        package init(count: Int) {
            out = RecordWireWriter(capacity: 64 + 256 * count)
            out.byte(version)
            out.varint(count)
        }

        /// The answer's bytes.
        package var bytes: [UInt8] { out.bytes }

        /// A saved record, with the fields of `desiredKeys` (all for `nil`).
        package mutating func saved(_ record: CKRecord, desiredKeys: [String]?) {
            out.byte(1)
            out.record(record, desiredKeys: desiredKeys)
        }

        /// A saved record as its change-log entry holds it (decision 0018.8): the same item,
        /// nothing encoded again.
        package mutating func saved(_ record: RawChangedRecord) {
            out.byte(1)
            out.record(record)
        }

        /// A deleted record.
        package mutating func deleted() { out.byte(2) }

        /// An operation's error dictionary.
        package mutating func error(_ dictionary: JSONValue) {
            out.byte(3)
            out.bytes(dictionary.serialized())
        }
    }

    /// One item of a `records/modify` answer.
    package enum ModifyAnswerItem {
        case saved(CKRecord)
        case deleted
        case error(JSONValue)
    }

    /// Reads an answer ``ModifyAnswerWriter`` wrote; the saved records of operation `i` are in
    /// `zones[i]`.
    package static func readModifyAnswer(_ bytes: [UInt8], zones: [CKRecordZone.ID]) throws(RecordWireError)
        -> [ModifyAnswerItem]
    {
        var reader = RecordWireReader(bytes)
        try checkVersion(&reader)
        let count = try reader.varint()
        guard count == zones.count else {
            throw RecordWireError("\(count) items answer \(zones.count) operations")
        }
        var items: [ModifyAnswerItem] = []
        items.reserveCapacity(count)
        for zone in zones {
            switch try reader.byte() {
            case 1: items.append(.saved(try reader.record(in: zone)))
            case 2: items.append(.deleted)
            case 3:
                let json = try reader.bytes()
                guard let dictionary = try? JSONValue.parse(json) else {
                    throw RecordWireError("an error item is not JSON")
                }
                items.append(.error(dictionary))
            default: throw RecordWireError("an item's tag is not 1, 2 or 3")
            }
        }
        try checkEnd(reader)
        return items
    }
}
