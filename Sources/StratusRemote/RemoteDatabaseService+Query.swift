import Foundation
import Stratus
import StratusWebServices

/// Queries: `records/query`, a page per call, the engine's cursor as `continuationMarker`.
extension RemoteDatabaseService {
    func query(
        _ query: CKQuery, zoneID: CKRecordZone.ID?, cursor: Data?, limit: Int, desiredKeys: [String]?
    ) throws -> QueryPage {
        let queryTranslator = WSQueryTranslator(translator: translator, zone: zoneID ?? .default)
        let dictionary: JSONValue
        do {
            dictionary = try queryTranslator.dictionary(for: query)
        } catch {
            throw RemoteFailure.error(.invalidArguments, "invalid query predicate: \(error.reason)")
        }
        var body: [String: JSONValue] = ["query": dictionary]
        if let zoneID {
            body["zoneID"] = translator.dictionary(for: zoneID)
        } else {
            body["zoneWide"] = true
        }
        if limit > 0 { body["resultsLimit"] = .integer(Int64(limit)) }
        if let cursor { body["continuationMarker"] = .string(SyncTokenText.encode(cursor)) }
        if let desiredKeys { body["desiredKeys"] = .array(desiredKeys.map(JSONValue.string)) }
        // Asks for the binary record encoding (decision 0018.10); a server without it answers JSON.
        let answer: JSONValue
        switch try transport.postRecords(scope, "records/query", JSONValue.object(body).serialized(), binary: false) {
        case .binary(let bytes): return try queried(bytes)
        case .json(let json): answer = json
        }
        var records: [CKRecord] = []
        try readingAssets {
            for item in try items("records", of: answer, "records/query") {
                do {
                    records.append(try translator.serverRecord(from: item, defaultZone: zoneID ?? .default))
                } catch {
                    throw malformed("records/query", error)
                }
            }
        }
        var cursor: Data?
        if answer["continuationMarker"] != nil {
            cursor = try tokenData(answer["continuationMarker"], "continuationMarker", "records/query")
        }
        return QueryPage(records: records, cursor: cursor)
    }

    /// A `records/query` page answered in the binary record encoding.
    private func queried(_ bytes: [UInt8]) throws(CKError) -> QueryPage {
        do throws(RecordWireError) {
            return try StratusRecordEncoding.readQueryAnswer(bytes, zoneID: translator.zoneID(from:))
        } catch {
            throw RemoteFailure.error(
                .serverResponseLost, "the answer to records/query cannot be read: \(error.reason)")
        }
    }
}
