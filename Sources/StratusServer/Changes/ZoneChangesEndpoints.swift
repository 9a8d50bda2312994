import Foundation
import Hummingbird
internal import Stratus
internal import StratusWebServices

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
        let numbersAsStrings = body.numbersAsStrings ?? false
        // Written on the engine's thread, right after the read: a page of 2,000 records is
        // milliseconds of CPU that would otherwise hold up an event loop's other connections.
        let answer = try await call.withDatabase { database in
            let batch = try database.fetchStoredZoneChanges(zone, since: token, limit: limit, desiredKeys: desiredKeys)
            var out = JSONWriter(capacity: 512 * batch.changes.count + 256)
            write(batch, of: zone, namingZone: false, translator: translator, numbersAsStrings, into: &out)
            return out.bytes
        }
        return JSONBody.response(answer)
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
        let numbersAsStrings = body.numbersAsStrings ?? false
        // Read and written on the engine's thread, as in records/changes.
        let answer = try await call.withDatabase { database in
            let results = asked.map { zone, token, limit, keys in
                Result { () throws(CKError) -> StoredZoneChangesBatch in
                    do {
                        return try database.fetchStoredZoneChanges(zone, since: token, limit: limit, desiredKeys: keys)
                    } catch let error as CKError {
                        throw error
                    } catch {
                        throw CKError(.internalError)
                    }
                }
            }
            return writeZones(zip(asked.map(\.0), results), translator: translator, call: call, numbersAsStrings)
        }
        return JSONBody.response(answer)
    }

    /// `{zones: [...]}`: each zone's batch, or its error dictionary.
    private static func writeZones(
        _ zones: some Sequence<(CKRecordZone.ID, Result<StoredZoneChangesBatch, CKError>)>,
        translator: WSRecordTranslator,
        call: DatabaseCall, _ numbersAsStrings: Bool
    ) -> [UInt8] {
        let items = Array(zones)
        let changed = items.reduce(0) { $0 + ((try? $1.1.get())?.changes.count ?? 0) }
        var out = JSONWriter(capacity: 512 * changed + 256)
        out.object { answer in
            answer.member("zones") {
                $0.array(items) { zones, item in
                    switch item.1 {
                    case .success(let batch):
                        write(
                            batch, of: item.0, namingZone: true, translator: translator, numbersAsStrings, into: &zones)
                    case .failure(let error):
                        zones.value(ZoneEndpoints.errorDictionary(error, zone: item.0, call: call))
                    }
                }
            }
        }
        return out.bytes
    }

    /// Writes `{moreComing, records, syncToken, zoneID}` of one batch of the zone `zoneID`;
    /// without `zoneID` unless `namingZone` (`records/changes` names no zone in its answer).
    /// Each record is written straight from its stored entry, as the `CKRecord` of
    /// `fetchZoneChanges` would be (`StoredChangeWritingTests` compares the two).
    static func write(
        _ batch: StoredZoneChangesBatch, of zoneID: CKRecordZone.ID, namingZone: Bool, translator: WSRecordTranslator,
        _ numbersAsStrings: Bool, into out: inout JSONWriter
    ) {
        ServerMetrics.recordsFetched(batch.changes.count)
        let zone = translator.writtenZone(zoneID)
        out.object { members in
            members.member("moreComing") { $0.bool(batch.moreComing) }
            members.member("records") {
                $0.array(batch.changes) { records, change in
                    switch change {
                    case .changed(let record):
                        translator.write(record, zone: zone, numbersAsStrings: numbersAsStrings, into: &records)
                    case .deleted(let name, let type):
                        let id = CKRecord.ID(recordName: name, zoneID: zoneID)
                        records.value(translator.tombstone(for: id, recordType: type))
                    }
                }
            }
            members.member("syncToken") { $0.string(SyncTokenText.encode(batch.token.data)) }
            if namingZone {
                members.member("zoneID") { translator.write(zoneID, into: &$0) }
            }
        }
    }

    /// The engine's batch size for a `resultsLimit`: its default when absent, at most its cap.
    static func resultsLimit(_ requested: Int?) throws(ServerError) -> Int {
        guard let requested else { return DatabaseContext.defaultChangesBatch }
        guard requested > 0 else { throw .badRequest("resultsLimit must be at least 1, not \(requested)") }
        return min(requested, DatabaseContext.maximumChangesBatch)
    }
}
