import Foundation
import Hummingbird
internal import Stratus

/// `records/changes` and `changes/zone`: a zone's changes since a `syncToken`, a page at a
/// time, as the engine's change log gives them (the same batches as
/// `CKFetchRecordZoneChangesOperation`).
enum ZoneChangesEndpoints {
    static let recordsChanges = DatabaseOperation(
        name: "records/changes", methods: [.post], writes: false, handle: handleRecordsChanges)
    static let changesZone = DatabaseOperation(
        name: "changes/zone", methods: [.post], writes: false, handle: handleChangesZone)

    static func handleRecordsChanges(_ call: DatabaseCall) async throws -> Response {
        let body = try call.decode(RecordsChangesRequest.self)
        let translator = call.translator
        let zone = translator.zoneID(from: body.zoneID)
        let token = try SyncTokenText.token(body.syncToken, name: "syncToken")
        let limit = try resultsLimit(body.resultsLimit)
        let desiredKeys = body.desiredKeys
        let batch = try await call.withDatabase { database in
            try database.fetchZoneChanges(zone, since: token, limit: limit, desiredKeys: desiredKeys)
        }
        var answer = dictionary(batch, zone: zone, call: call, numbersAsStrings: body.numbersAsStrings ?? false)
        answer["zoneID"] = nil
        return call.respond(.object(answer))
    }

    static func handleChangesZone(_ call: DatabaseCall) async throws -> Response {
        let body = try call.decode(ChangesZoneRequest.self)
        guard body.zones.count <= 400 else {
            throw ServerError.badRequest(
                "the request names \(body.zones.count) zones; the limit is 400", stratusErrorCode: "limitExceeded")
        }
        let translator = call.translator
        var requests: [(CKRecordZone.ID, CKServerChangeToken?, Int, [String]?)] = []
        for (index, zone) in body.zones.enumerated() {
            let token = try SyncTokenText.token(zone.syncToken, name: "zones[\(index)].syncToken")
            requests.append(
                (
                    translator.zoneID(from: zone.zoneID), token,
                    try resultsLimit(zone.resultsLimit ?? body.resultsLimit),
                    zone.desiredKeys ?? body.desiredKeys
                ))
        }
        let asked = requests
        let results = try await call.withDatabase { database in
            asked.map { zone, token, limit, keys in
                Result { () throws(CKError) -> ZoneChangesBatch in
                    do {
                        return try database.fetchZoneChanges(zone, since: token, limit: limit, desiredKeys: keys)
                    } catch let error as CKError {
                        throw error
                    } catch {
                        throw CKError(.internalError)
                    }
                }
            }
        }
        let numbersAsStrings = body.numbersAsStrings ?? false
        let zones: [JSONValue] = zip(requests, results).map { request, result in
            switch result {
            case .success(let batch):
                return .object(dictionary(batch, zone: request.0, call: call, numbersAsStrings: numbersAsStrings))
            case .failure(let error):
                return ZoneEndpoints.errorDictionary(error, zone: request.0, call: call)
            }
        }
        return call.respond(["zones": .array(zones)])
    }

    /// `{zoneID, records, syncToken, moreComing}` of one batch.
    static func dictionary(_ batch: ZoneChangesBatch, zone: CKRecordZone.ID, call: DatabaseCall, numbersAsStrings: Bool)
        -> [String: JSONValue]
    {
        ServerMetrics.recordsFetched(batch.changes.count)
        let translator = call.translator
        let records: [JSONValue] = batch.changes.map { change in
            switch change {
            case .changed(let record):
                return translator.dictionary(for: record, numbersAsStrings: numbersAsStrings, desiredKeys: nil)
            case .deleted(let id, let type):
                return translator.tombstone(for: id, recordType: type)
            }
        }
        return [
            "zoneID": translator.dictionary(for: zone), "records": .array(records),
            "syncToken": .string(SyncTokenText.encode(batch.token.data)), "moreComing": .bool(batch.moreComing),
        ]
    }

    /// The engine's batch size for a `resultsLimit`: its default when absent, at most its cap.
    static func resultsLimit(_ requested: Int?) throws(ServerError) -> Int {
        guard let requested else { return DatabaseContext.defaultChangesBatch }
        guard requested > 0 else { throw .badRequest("resultsLimit must be at least 1, not \(requested)") }
        return min(requested, DatabaseContext.maximumChangesBatch)
    }
}
