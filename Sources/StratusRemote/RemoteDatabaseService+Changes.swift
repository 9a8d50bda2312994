import Foundation
import Stratus
import StratusWebServices

/// Changes: `records/changes` for a zone, `changes/database` for the database.
extension RemoteDatabaseService {
    func fetchZoneChanges(
        _ zoneID: CKRecordZone.ID, since token: CKServerChangeToken?, limit: Int, desiredKeys: [String]?
    ) throws -> ZoneChangesBatch {
        var body: [String: JSONValue] = ["zoneID": translator.dictionary(for: zoneID)]
        if let token { body["syncToken"] = .string(SyncTokenText.encode(token.data)) }
        if limit > 0 { body["resultsLimit"] = .integer(Int64(limit)) }
        if let desiredKeys { body["desiredKeys"] = .array(desiredKeys.map(JSONValue.string)) }
        // Asks for the binary record encoding (decision 0018); a server without it answers JSON.
        let key = RemoteChangesPipeline.Key(
            zoneID: zoneID, token: token?.data ?? Data(), limit: limit, desiredKeys: desiredKeys)
        let answer: JSONValue
        switch try changesAnswer(key, body: body) {
        case .binary(let bytes):
            askAhead(after: bytes, key: key, body: body)
            do throws(RecordWireError) {
                return try StratusRecordEncoding.readChangesAnswer(bytes, zoneID: zoneID)
            } catch {
                throw RemoteFailure.error(
                    .serverResponseLost, "the answer to records/changes cannot be read: \(error.reason)")
            }
        case .json(let json): answer = json
        }
        var changes: [ZoneChangesBatch.Change] = []
        try readingAssets {
            for item in try items("records", of: answer, "records/changes") {
                changes.append(try change(item, zone: zoneID))
            }
        }
        return ZoneChangesBatch(
            changes: changes,
            token: CKServerChangeToken(data: try tokenData(answer["syncToken"], "syncToken", "records/changes")),
            moreComing: answer["moreComing"] == .bool(true), clientChangeTokenData: try clientData(answer))
    }

    /// The answer to the `records/changes` request `body` for `key`: the page asked for ahead,
    /// when it is that one and still current, or a new request.
    private func changesAnswer(_ key: RemoteChangesPipeline.Key, body: [String: JSONValue]) throws(CKError)
        -> RemoteAnswer
    {
        if let ahead = pipeline.take(key), let answer = transport.finishPostRecords(ahead, scope, "records/changes") {
            return answer
        }
        return try transport.postRecords(scope, "records/changes", JSONValue.object(body).serialized(), binary: false)
    }

    /// Asks for the page after the binary answer `bytes` (to `body`, for `key`) when more are
    /// coming, before `bytes` are decoded (``RemoteChangesPipeline``).
    private func askAhead(after bytes: [UInt8], key: RemoteChangesPipeline.Key, body: [String: JSONValue]) {
        guard let next = StratusRecordEncoding.continuationToken(of: bytes) else { return }
        var body = body
        body["syncToken"] = .string(SyncTokenText.encode(next))
        let writes = RemoteChangesPipeline.writeCount
        guard let response = transport.startPostRecords(scope, "records/changes", JSONValue.object(body).serialized())
        else { return }
        var nextKey = key
        nextKey.token = next
        pipeline.start(nextKey, writes: writes, response)
    }

    /// The `clientChangeTokenData` a changes answer reports (Stratus's addition, 0016.2).
    private func clientData(_ answer: JSONValue) throws(CKError) -> Data? {
        guard let value = answer["clientChangeTokenData"] else { return nil }
        guard case .string(let text) = value, let data = Data(base64Encoded: text) else {
            throw RemoteFailure.error(
                .serverResponseLost, "records/changes answered clientChangeTokenData that is not base64")
        }
        return data
    }

    /// One item of a zone's changes: a record, or a tombstone.
    private func change(_ item: JSONValue, zone: CKRecordZone.ID) throws -> ZoneChangesBatch.Change {
        if item["deleted"] == .bool(true) {
            guard case .string(let name) = item["recordName"] else {
                throw RemoteFailure.error(
                    .serverResponseLost, "records/changes answered a tombstone without recordName")
            }
            var type = ""
            if case .string(let recordType) = item["recordType"] { type = recordType }
            return .deleted(CKRecord.ID(recordName: name, zoneID: zone), type)
        }
        do {
            return .changed(try translator.serverRecord(from: item, defaultZone: zone))
        } catch {
            throw malformed("records/changes", error)
        }
    }

    func fetchDatabaseChanges(since token: CKServerChangeToken?, limit: Int) throws -> DatabaseChangesBatch {
        var body: [String: JSONValue] = [:]
        if let token { body["syncToken"] = .string(SyncTokenText.encode(token.data)) }
        if limit > 0 { body["resultsLimit"] = .integer(Int64(limit)) }
        let answer = try post("changes/database", .object(body))
        var batch = DatabaseChangesBatch(
            changed: [], deleted: [],
            token: CKServerChangeToken(data: try tokenData(answer["syncToken"], "syncToken", "changes/database")),
            moreComing: answer["moreComing"] == .bool(true))
        for item in try items("zones", of: answer, "changes/database") {
            let zone = try zoneID(item["zoneID"], "changes/database")
            if item["deleted"] == .bool(true) {
                let kind: DatabaseChangeEntry.Kind =
                    item["purged"] == .bool(true)
                    ? .purged : item["encryptedDataReset"] == .bool(true) ? .encryptedDataReset : .deleted
                batch.deleted.append((zone, kind))
            } else {
                batch.changed.append(zone)
            }
        }
        return batch
    }
}
