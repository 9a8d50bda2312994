import Foundation
import Stratus
import StratusWebServices

/// A modify request as `records/modify` operations (decision 0016): saves first, then deletes,
/// each with the Web Services `operationType` that asks the server's engine for what the
/// request's `SavePolicy` asks the local one.
///
/// | Local save | Operation | Fields sent |
/// |---|---|---|
/// | `ifServerRecordUnchanged`, no change tag | `create` | every field |
/// | `ifServerRecordUnchanged`, a change tag | `update` with it | the changed keys |
/// | `changedKeys` | `forceUpdate` | the changed keys |
/// | `allKeys` | `forceUpdate` | every field, and the changed keys cleared |
///
/// One difference remains: a `changedKeys` save of a fetched record whose server copy was
/// deleted meanwhile recreates it with the changed keys only (locally, with every field).
enum RemoteModifyPlan {
    /// The operations of `request`, saves then deletes. Asset fields are written by the
    /// translator's asset coder: the receipts of their uploads (``RemoteAssetUploads``).
    static func operations(_ request: ModifyRequest, translator: WSRecordTranslator) -> [JSONValue] {
        var operations: [JSONValue] = []
        operations.reserveCapacity(request.saves.count + request.deletes.count)
        for save in request.saves {
            let (type, keys) = operationType(save, policy: request.policy)
            operations.append([
                "operationType": .string(type), "record": translator.requestDictionary(for: save.record, keys: keys),
            ])
        }
        for (index, id) in request.deletes.enumerated() {
            var record: [String: JSONValue] = [
                "recordName": .string(id.recordName), "zoneID": translator.dictionary(for: id.zoneID),
            ]
            switch request.deleteMode(index) {
            case .force:
                operations.append(["operationType": "forceDelete", "record": .object(record)])
            case .ifChangeTag(let tag):
                record["recordChangeTag"] = .string(tag)
                operations.append(["operationType": "delete", "record": .object(record)])
            }
        }
        return operations
    }

    /// The fields of `save` that its operation sends.
    static func sentKeys(_ save: ModifyRequest.Save, policy: SavePolicy) -> [String] {
        operationType(save, policy: policy).1
    }

    /// The operation type and the fields to send for one save.
    static func operationType(_ save: ModifyRequest.Save, policy: SavePolicy) -> (String, [String]) {
        switch save.mode {
        case .create: return ("create", save.record.allKeys())
        case .update: return ("update", save.changedKeys)
        case .forceUpdate: return ("forceUpdate", save.changedKeys)
        case .replace: return ("replace", save.changedKeys)
        case .forceReplace: return ("forceReplace", save.changedKeys)
        case nil: break
        }
        switch policy {
        case .ifServerRecordUnchanged:
            if save.record.recordChangeTag == nil { return ("create", save.record.allKeys()) }
            return ("update", save.changedKeys)
        case .changedKeys:
            return ("forceUpdate", save.changedKeys)
        case .allKeys:
            let all = save.record.allKeys()
            return ("forceUpdate", all + save.changedKeys.filter { !all.contains($0) })
        }
    }
}
