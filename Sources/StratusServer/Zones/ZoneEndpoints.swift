import Foundation
import Hummingbird
internal import Stratus
internal import StratusWebServices

/// `zones/list`, `zones/lookup` and `zones/modify` over the engine's zones.
enum ZoneEndpoints {
    static let list = DatabaseOperation(name: "zones/list", methods: [.get, .post], writes: false, handle: handleList)
    static let lookup = DatabaseOperation(name: "zones/lookup", methods: [.post], writes: false, handle: handleLookup)
    static let modify = DatabaseOperation(name: "zones/modify", methods: [.post], writes: true, handle: handleModify)

    static func handleList(_ call: DatabaseCall) async throws -> Response {
        let zones = try await call.withDatabase { database in try database.fetchZones(nil) }
        return call.respond(["zones": .array(zones.map { answer($0.0, $0.1, call: call) })])
    }

    static func handleLookup(_ call: DatabaseCall) async throws -> Response {
        let body = try call.decode(ZonesLookupRequest.self)
        guard body.zones.count <= 400 else {
            throw ServerError.badRequest(
                "the request names \(body.zones.count) zones; the limit is 400", stratusErrorCode: "limitExceeded")
        }
        let ids = body.zones.map { call.translator.zoneID(from: $0.zoneID) }
        let zones = try await call.withDatabase { database in try database.fetchZones(ids) }
        return call.respond(["zones": .array(zones.map { answer($0.0, $0.1, call: call) })])
    }

    static func handleModify(_ call: DatabaseCall) async throws -> Response {
        let body = try call.decode(ZonesModifyRequest.self)
        guard body.operations.count <= 400 else {
            throw ServerError.badRequest(
                "the request has \(body.operations.count) operations; the limit is 400",
                stratusErrorCode: "limitExceeded")
        }
        var saving: [CKRecordZone] = []
        var deleting: [CKRecordZone.ID] = []
        for (index, operation) in body.operations.enumerated() {
            let id = call.translator.zoneID(from: operation.zone.zoneID)
            switch operation.operationType {
            case "create":
                saving.append(CKRecordZone(zoneID: id))
            case "delete": deleting.append(id)
            default:
                throw ServerError.badRequest(
                    "operations[\(index)]: operationType '\(operation.operationType)' is not create or delete")
            }
        }
        let (toSave, toDelete) = (saving, deleting)
        let (saved, deleted) = try await call.withDatabase { database in
            try database.modifyZones(saving: toSave, deleting: toDelete)
        }
        var savedByID: [CKRecordZone.ID: Result<CKRecordZone, CKError>] = [:]
        for (id, result) in saved { savedByID[id] = result }
        var deletedByID: [CKRecordZone.ID: Result<Void, CKError>] = [:]
        for (id, result) in deleted { deletedByID[id] = result }
        let zones: [JSONValue] = body.operations.map { operation in
            let id = call.translator.zoneID(from: operation.zone.zoneID)
            if operation.operationType == "create", let result = savedByID[id] {
                return answer(id, result, call: call)
            }
            switch deletedByID[id] {
            case .success: return ["zoneID": call.translator.dictionary(for: id), "deleted": true]
            case .failure(let error): return errorDictionary(error, zone: id, call: call)
            case nil: return errorDictionary(CKError(.internalError), zone: id, call: call)
            }
        }
        return call.respond(["zones": .array(zones)])
    }

    /// A zone dictionary `{zoneID, atomic}`, or the zone's error dictionary.
    static func answer(_ id: CKRecordZone.ID, _ result: Result<CKRecordZone, CKError>, call: DatabaseCall) -> JSONValue
    {
        switch result {
        case .success(let zone):
            return WSZoneCoding.dictionary(for: zone, translator: call.translator)
        case .failure(let error):
            return errorDictionary(error, zone: id, call: call)
        }
    }

    /// A zone's error dictionary: `{zoneID, serverErrorCode, reason, uuid}`.
    static func errorDictionary(_ error: CKError, zone: CKRecordZone.ID, call: DatabaseCall) -> JSONValue {
        var members = WSErrorWriter.members(
            for: error, uuid: call.requestID, hiddenReason: "the server failed on this zone")
        members["zoneID"] = call.translator.dictionary(for: zone)
        return .object(members)
    }
}
