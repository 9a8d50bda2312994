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
        let binary = call.acceptsRecordEncoding && !numbersAsStrings
        let read = try await call.withDatabase { database -> ChangesRead in
            // Every field: the change log's entries as they are, passed on in the binary encoding
            // (0018.8) or written as JSON from their bytes — unless a record holds an asset
            // (then from a second read, decoded: assets get their download URLs).
            if desiredKeys == nil {
                let raw = try database.fetchRawZoneChanges(zone, since: token, limit: limit)
                if !raw.changes.contains(where: \.containsAsset) {
                    ServerMetrics.recordsFetched(raw.changes.count)
                    if binary, let bytes = StratusRecordEncoding.changesAnswer(raw) { return .binary(bytes) }
                    return .json(.raw(raw))
                }
            }
            let batch = try database.fetchStoredZoneChanges(zone, since: token, limit: limit, desiredKeys: desiredKeys)
            ServerMetrics.recordsFetched(batch.changes.count)
            // The binary record encoding when asked for and the records hold no asset (decision 0018).
            if binary, let bytes = StratusRecordEncoding.changesAnswer(batch) { return .binary(bytes) }
            return .json(.stored(batch))
        }
        switch read {
        case .binary(let bytes):
            return DatabaseCall.recordEncodingResponse(bytes)
        case .json(let changes):
            // Written while it is sent, a piece at a time, off the engine's threads.
            return try ChangesAnswerStream(
                changes: changes, zoneID: zone, translator: translator, numbersAsStrings: numbersAsStrings,
                requestID: call.requestID, logger: call.server.logger
            ).response()
        }
    }

    /// What a `records/changes` read gives: an answer in the binary record encoding, or the
    /// batch to write as JSON.
    private enum ChangesRead: Sendable {
        case binary([UInt8])
        case json(ChangesAnswerStream.Changes)
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
        // Each zone once: a zone named 400 times would be read and written 400 times, a small
        // request turned into an answer of hundreds of megabytes.
        var named = Set<CKRecordZone.ID>()
        for (index, request) in requests.enumerated() where !named.insert(request.0).inserted {
            throw ServerError.badRequest(
                "zones[\(index)] names zone '\(request.0.zoneName)' again; name each zone once")
        }
        let asked = requests
        let numbersAsStrings = body.numbersAsStrings ?? false
        // Read and written on the engine's thread, as in records/changes.
        // The zones share one batch's byte budget: past it, each further zone answers one
        // record and moreComing.
        let answer = try await call.withDatabase { database in
            var budget = DatabaseContext.maximumChangesBatchBytes
            let results = asked.map { zone, token, limit, keys in
                Result { () throws(CKError) -> StoredZoneChangesBatch in
                    do {
                        let batch = try database.fetchStoredZoneChanges(
                            zone, since: token, limit: limit, desiredKeys: keys, byteBudget: max(0, budget))
                        budget -= batch.bytesRead
                        return batch
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

    /// `{zones: [...]}`: each zone's batch, or its error dictionary. Each record is written
    /// straight from its stored entry, as the `CKRecord` of `fetchZoneChanges` would be
    /// (`StoredChangeWritingTests` compares the two).
    private static func writeZones(
        _ zones: some Sequence<(CKRecordZone.ID, Result<StoredZoneChangesBatch, CKError>)>,
        translator: WSRecordTranslator, call: DatabaseCall, _ numbersAsStrings: Bool
    ) -> [UInt8] {
        let items = Array(zones)
        let changed = items.reduce(0) { $0 + ((try? $1.1.get())?.changes.count ?? 0) }
        ServerMetrics.recordsFetched(changed)
        var out = WSChangesAnswerWriter(
            translator: translator, numbersAsStrings: numbersAsStrings, capacity: answerCapacity(changed))
        out.raw(#"{"zones":["#)
        for (index, (zone, result)) in items.enumerated() {
            if index > 0 { out.raw(",") }
            switch result {
            case .success(let batch):
                out.write(batch, of: zone, syncToken: SyncTokenText.encode(batch.token.data), namingZone: true)
            case .failure(let error):
                out.value(ZoneEndpoints.errorDictionary(error, zone: zone, call: call))
            }
        }
        out.raw("]}")
        return out.bytes
    }

    /// The bytes reserved for an answer of `records` records: enough for most without growing
    /// (a record of the Kinto peer's shape, a title and 200 characters, is about 620 bytes;
    /// growing a 1 MB answer copies it), and untouched pages of the rest cost nothing; at most
    /// 32 MiB up front for the largest `changes/zone` answers.
    private static func answerCapacity(_ records: Int) -> Int {
        min(1024 * records, 32 << 20) + 256
    }

    /// The engine's batch size for a `resultsLimit`: its default when absent, at most its cap.
    static func resultsLimit(_ requested: Int?) throws(ServerError) -> Int {
        guard let requested else { return DatabaseContext.defaultChangesBatch }
        guard requested > 0 else { throw .badRequest("resultsLimit must be at least 1, not \(requested)") }
        return min(requested, DatabaseContext.maximumChangesBatch)
    }
}
