import Foundation
import Hummingbird
internal import Stratus
internal import StratusWebServices

/// `records/query`: one page of the records matching a query, in the engine's order, and a
/// `continuationMarker` (the engine's cursor) while more remain.
enum RecordsQuery {
    static let operation = DatabaseOperation(name: "records/query", methods: [.post], writes: false, handle: handle)

    static func handle(_ call: DatabaseCall) async throws -> Response {
        let body = try call.decode(RecordsQueryRequest.self)
        let translator = call.translator
        let zone = body.zoneID.map(translator.zoneID(from:))
        let searched: CKRecordZone.ID? = zone ?? (body.zoneWide == true ? nil : .default)
        let query: CKQuery
        do throws(WSTranslationError) {
            query = try WSQueryTranslator(translator: translator, zone: zone ?? .default)
                .query(from: body.query, path: "query")
        } catch {
            throw ServerError.badRequest(
                error.reason, stratusErrorCode: error.exceedsALimit ? "limitExceeded" : "invalidArguments")
        }
        let cursor = try body.continuationMarker.map { text throws(ServerError) in
            try SyncTokenText.decode(text, name: "continuationMarker")
        }
        if let limit = body.resultsLimit, limit < 1 {
            throw ServerError.badRequest("resultsLimit must be at least 1, not \(limit)")
        }
        let (limit, desiredKeys) = (body.resultsLimit ?? 0, body.desiredKeys)
        let page = try await call.withDatabase { database in
            try database.query(query, zoneID: searched, cursor: cursor, limit: limit, desiredKeys: desiredKeys)
        }
        ServerMetrics.recordsFetched(page.records.count)
        let numbersAsStrings = body.numbersAsStrings ?? false
        if call.acceptsRecordEncoding, !numbersAsStrings,
            let bytes = binaryAnswer(page, desiredKeys: desiredKeys, translator: translator)
        {
            return DatabaseCall.recordEncodingResponse(bytes)
        }
        var answer: [String: JSONValue] = [
            "records": .array(
                page.records.map {
                    translator.dictionary(for: $0, numbersAsStrings: numbersAsStrings, desiredKeys: desiredKeys)
                })
        ]
        answer["continuationMarker"] = page.cursor.map { .string(SyncTokenText.encode($0)) }
        return call.respond(.object(answer))
    }

    /// The page in the binary record encoding (decision 0018.10), its cursor as the
    /// continuation marker; `nil` when a record holds an asset among `desiredKeys` (answered as
    /// JSON, whose translator writes its download URL).
    private static func binaryAnswer(_ page: QueryPage, desiredKeys: [String]?, translator: WSRecordTranslator)
        -> [UInt8]?
    {
        var out = StratusRecordEncoding.QueryAnswerWriter(
            cursor: page.cursor, count: page.records.count, translator: translator)
        for record in page.records {
            if RecordWireWriter.hasAssets(record, desiredKeys: desiredKeys) { return nil }
            out.record(record, desiredKeys: desiredKeys)
        }
        return out.bytes
    }
}
