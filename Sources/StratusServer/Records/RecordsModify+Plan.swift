import Foundation
import Hummingbird
internal import Stratus
internal import StratusWebServices

extension RecordsModify {
    /// The engine's view of a `records/modify` body: saves and deletes with their modes, and
    /// where each operation went.
    struct Plan {
        var saves: [(record: CKRecord, mode: SaveMode)] = []
        var deletes: [(id: CKRecord.ID, mode: DeleteMode)] = []
        var slots: [Slot] = []

        /// - Throws: 400 `BAD_REQUEST` naming the operation: an unknown `operationType`, a
        ///   missing `recordChangeTag` or `recordName`, a field the translator refuses; more
        ///   than 400 operations.
        init(_ body: RecordsModifyRequest, translator: WSRecordTranslator) throws(ServerError) {
            let limit = 400
            guard body.operations.count <= limit else {
                throw .badRequest(
                    "the request has \(body.operations.count) operations; the limit is \(limit)",
                    stratusErrorCode: "limitExceeded")
            }
            let zone = body.zoneID.map(translator.zoneID(from:)) ?? CKRecordZone.ID.default
            slots.reserveCapacity(body.operations.count)
            for (index, operation) in body.operations.enumerated() {
                do {
                    try add(operation, zone: zone, translator: translator)
                } catch {
                    throw .badRequest("operations[\(index)]: \(error.reason)")
                }
            }
        }

        /// Refuses more operations than one request may carry (400 `BAD_REQUEST`,
        /// `limitExceeded`).
        static func checkOperationCount(_ count: Int) throws(ServerError) {
            let limit = 400
            guard count <= limit else {
                throw .badRequest(
                    "the request has \(count) operations; the limit is \(limit)", stratusErrorCode: "limitExceeded")
            }
        }

        /// The plan of a binary body (decision 0018): the same modes and checks as a JSON one's.
        init(_ body: StratusRecordEncoding.ModifyRequestBody) throws(ServerError) {
            try Self.checkOperationCount(body.operations.count)
            slots.reserveCapacity(body.operations.count)
            saves.reserveCapacity(body.operations.count)
            for (index, operation) in body.operations.enumerated() {
                func tag(_ tag: String?, _ type: String) throws(ServerError) -> String {
                    guard let tag, !tag.isEmpty else {
                        throw .badRequest(
                            "operations[\(index)]: operationType \(type) needs the record's recordChangeTag")
                    }
                    return tag
                }
                switch operation {
                case .save(let record, let type, let changeTag):
                    let mode: SaveMode
                    switch type {
                    case "create": mode = .create
                    case "update": mode = .update(changeTag: try tag(changeTag, type))
                    case "replace": mode = .replace(changeTag: try tag(changeTag, type))
                    case "forceReplace": mode = .forceReplace
                    default: mode = .forceUpdate
                    }
                    slots.append(.save(saves.count))
                    saves.append((record, mode))
                case .delete(let id, let changeTag):
                    slots.append(.delete(deletes.count))
                    deletes.append((id, changeTag == nil ? .force : .ifChangeTag(try tag(changeTag, "delete"))))
                }
            }
        }

        private mutating func add(
            _ operation: RecordsModifyRequest.Operation, zone: CKRecordZone.ID, translator: WSRecordTranslator
        ) throws(WSTranslationError) {
            let dictionary = operation.record
            func tag() throws(WSTranslationError) -> String {
                guard let tag = dictionary.recordChangeTag, !tag.isEmpty else {
                    throw WSTranslationError(
                        reason: "operationType \(operation.operationType) needs the record's recordChangeTag")
                }
                return tag
            }
            let mode: SaveMode
            switch operation.operationType {
            case "create": mode = .create
            case "update": mode = .update(changeTag: try tag())
            case "forceUpdate": mode = .forceUpdate
            case "replace": mode = .replace(changeTag: try tag())
            case "forceReplace": mode = .forceReplace
            case "delete", "forceDelete":
                guard dictionary.recordName != nil else {
                    throw WSTranslationError(reason: "a delete needs the record's recordName")
                }
                let id = translator.recordID(from: dictionary, defaultZone: zone)
                slots.append(.delete(deletes.count))
                deletes.append((id, operation.operationType == "delete" ? .ifChangeTag(try tag()) : .force))
                return
            default:
                throw WSTranslationError(
                    reason: "operationType '\(operation.operationType)' is not one of create, update, forceUpdate, "
                        + "replace, forceReplace, delete, forceDelete")
            }
            if dictionary.recordName == nil, mode != .create {
                throw WSTranslationError(
                    reason: "operationType \(operation.operationType) needs the record's recordName")
            }
            let record = try translator.record(from: dictionary, defaultZone: zone)
            slots.append(.save(saves.count))
            saves.append((record, mode))
        }
    }
}
