import Foundation
import Hummingbird
internal import Stratus
internal import StratusWebServices

/// `records/lookup`: the records by name, from one snapshot, answered one dictionary per
/// requested name in request order (a name asked twice is refused).
enum RecordsLookup {
    static let operation = DatabaseOperation(
        name: "records/lookup", methods: [.post], writes: false, handle: handle)

    static func handle(_ call: DatabaseCall) async throws -> Response {
        let body = try call.decode(RecordsLookupRequest.self)
        let limit = 400
        guard body.records.count <= limit else {
            throw ServerError.badRequest(
                "the request asks for \(body.records.count) records; the limit is \(limit)",
                stratusErrorCode: "limitExceeded")
        }
        // Each list as the engine limits it, before the union hides repeats: a list of four
        // million copies of one key would otherwise be applied to every record's answer.
        for keys in [body.desiredKeys] + body.records.map(\.desiredKeys) {
            if let keys, keys.count > Validation.maximumDesiredKeys {
                throw ServerError.badRequest(
                    "desiredKeys lists \(keys.count) fields; the limit is \(Validation.maximumDesiredKeys)",
                    stratusErrorCode: "limitExceeded")
            }
        }
        // Each name once: a large record named 400 times would be written 400 times, a small
        // request turned into an answer of hundreds of megabytes.
        var named = Set<String>()
        for (index, item) in body.records.enumerated() where !named.insert(item.recordName).inserted {
            throw ServerError.badRequest(
                "records[\(index)] names record '\(item.recordName)' again; name each record once")
        }
        let translator = call.translator
        let zone = body.zoneID.map(translator.zoneID(from:)) ?? CKRecordZone.ID.default
        let ids = body.records.map { CKRecord.ID(recordName: $0.recordName, zoneID: zone) }
        let fetchKeys = unionOfDesiredKeys(body)
        let results = try await call.withDatabase { database in try database.fetchRecords(ids, desiredKeys: fetchKeys) }
        ServerMetrics.recordsFetched(results.count { if case .success = $0.1 { true } else { false } })
        var byName: [String: Result<CKRecord, CKError>] = [:]
        for (id, result) in results { byName[id.recordName] = result }
        let numbersAsStrings = body.numbersAsStrings ?? false
        if call.acceptsRecordEncoding, !numbersAsStrings,
            let bytes = binaryAnswer(body, byName, translator: translator, call: call)
        {
            return DatabaseCall.recordEncodingResponse(bytes)
        }
        var out = JSONWriter(capacity: 512 * body.records.count + 64)
        out.object { answer in
            answer.member("records") {
                $0.array(body.records) { records, item in
                    switch byName[item.recordName] ?? .failure(CKError(.internalError)) {
                    case .success(let record):
                        translator.write(
                            record, numbersAsStrings: numbersAsStrings,
                            desiredKeys: item.desiredKeys ?? body.desiredKeys, into: &records)
                    case .failure(let error):
                        records.value(
                            ItemError.dictionary(
                                error, recordName: item.recordName, requestID: call.requestID, translator: translator,
                                numbersAsStrings: numbersAsStrings))
                    }
                }
            }
        }
        return JSONBody.response(out.bytes)
    }

    /// The answer in the binary record encoding (decision 0018.10): the items the JSON answer
    /// has, in its order; `nil` when a record holds an asset among its desired keys (answered
    /// as JSON, whose translator writes its download URL).
    private static func binaryAnswer(
        _ body: RecordsLookupRequest, _ byName: [String: Result<CKRecord, CKError>], translator: WSRecordTranslator,
        call: DatabaseCall
    ) -> [UInt8]? {
        var out = StratusRecordEncoding.ModifyAnswerWriter(count: body.records.count)
        for item in body.records {
            let desiredKeys = item.desiredKeys ?? body.desiredKeys
            switch byName[item.recordName] ?? .failure(CKError(.internalError)) {
            case .success(let record):
                if RecordWireWriter.hasAssets(record, desiredKeys: desiredKeys) { return nil }
                out.saved(record, desiredKeys: desiredKeys)
            case .failure(let error):
                out.error(
                    ItemError.dictionary(
                        error, recordName: item.recordName, requestID: call.requestID, translator: translator,
                        numbersAsStrings: false))
            }
        }
        return out.bytes
    }

    /// The keys to read: every field when any item (or the request) wants every field, else the
    /// union of what the items want; each item's own keys are applied to its answer.
    private static func unionOfDesiredKeys(_ body: RecordsLookupRequest) -> [String]? {
        // The request's own list once, not once per item that has none.
        if body.records.allSatisfy({ $0.desiredKeys == nil }) { return body.desiredKeys }
        var keys = Set<String>()
        var usesTheRequestsKeys = false
        for item in body.records {
            if let own = item.desiredKeys {
                keys.formUnion(own)
            } else if body.desiredKeys == nil {
                return nil
            } else {
                usesTheRequestsKeys = true
            }
        }
        if usesTheRequestsKeys, let shared = body.desiredKeys { keys.formUnion(shared) }
        return keys.sorted()
    }
}
