import Foundation
import Hummingbird
internal import Stratus
internal import StratusWebServices

/// `records/modify`: the operations become one engine request (per-item save and delete
/// modes), and the engine's outcome is answered one dictionary per operation, in request
/// order. Every check that refuses the whole request runs before the engine sees it, so
/// nothing is half-applied.
enum RecordsModify {
    static let operation = DatabaseOperation(
        name: "records/modify", methods: [.post], writes: true, handle: handle)

    /// Where each operation went in the engine request.
    enum Slot {
        case save(Int)
        case delete(Int)
    }

    /// A request's body, JSON or binary (decision 0018), as the engine and the answer need it.
    struct Input {
        var plan: Plan
        var atomic: Bool
        var clientChangeTokenData: Data?
        var numbersAsStrings: Bool
        /// Each operation's type and the fields to answer for it (all for `nil`).
        var operationTypes: [String]
        var desiredKeys: [[String]?]
    }

    static func handle(_ call: DatabaseCall) async throws -> Response {
        let translator = call.translator
        let input = try call.sentRecordEncoding ? binaryInput(call, translator) : jsonInput(call, translator)
        let request = ModifyRequest(
            saves: input.plan.saves, deletes: input.plan.deletes, atomic: input.atomic,
            clientChangeTokenData: input.clientChangeTokenData)
        let outcome = try await call.modify(request)
        ServerMetrics.recordsSaved(outcome.saveResults.count { if case .success = $0.1 { true } else { false } })
        if call.acceptsRecordEncoding, !input.numbersAsStrings,
            let bytes = binaryAnswer(input, outcome: outcome, translator: translator, call: call)
        {
            return DatabaseCall.recordEncodingResponse(bytes)
        }
        var out = JSONWriter(capacity: 512 * input.operationTypes.count + 64)
        out.object { answer in
            answer.member("records") {
                $0.array(input.operationTypes.indices) { records, index in
                    writeItem(index, of: input, outcome: outcome, translator: translator, call: call, into: &records)
                }
            }
        }
        return JSONBody.response(out.bytes)
    }

    /// A JSON body's input.
    private static func jsonInput(_ call: DatabaseCall, _ translator: WSRecordTranslator) throws -> Input {
        let body = try call.decode(RecordsModifyRequest.self)
        // Each saved record's answer is written with its keys: as many as a fetch may ask for.
        for keys in [body.desiredKeys] + body.operations.map(\.desiredKeys) {
            if let keys, keys.count > Validation.maximumDesiredKeys {
                throw ServerError.badRequest(
                    "desiredKeys lists \(keys.count) fields; the limit is \(Validation.maximumDesiredKeys)",
                    stratusErrorCode: "limitExceeded")
            }
        }
        return Input(
            plan: try Plan(body, translator: translator), atomic: body.atomic ?? true,
            clientChangeTokenData: try clientChangeTokenData(body), numbersAsStrings: body.numbersAsStrings ?? false,
            operationTypes: body.operations.map(\.operationType),
            desiredKeys: body.operations.map { $0.desiredKeys ?? body.desiredKeys })
    }

    /// A binary body's input (decision 0018): 400 `BAD_REQUEST` saying what is malformed.
    private static func binaryInput(_ call: DatabaseCall, _ translator: WSRecordTranslator) throws -> Input {
        if let count = try? StratusRecordEncoding.modifyRequestOperationCount(call.bodyBytes) {
            try Plan.checkOperationCount(count)
        }
        let body: StratusRecordEncoding.ModifyRequestBody
        switch Result(catching: { () throws(RecordWireError) -> StratusRecordEncoding.ModifyRequestBody in
            try StratusRecordEncoding.readModifyRequest(call.bodyBytes, zoneID: translator.zoneID(from:))
        }) {
        case .success(let read): body = read
        case .failure(let error):
            throw ServerError.badRequest(
                "the body is not a valid \(StratusRecordEncoding.mediaType) request: \(error.reason)")
        }
        let plan = try Plan(body)
        let types = body.operations.map { operation -> String in
            switch operation {
            case .save(_, let type, _): return type
            case .delete(_, let tag): return tag == nil ? "forceDelete" : "delete"
            }
        }
        return Input(
            plan: plan, atomic: body.atomic, clientChangeTokenData: body.clientChangeTokenData, numbersAsStrings: false,
            operationTypes: types, desiredKeys: Array(repeating: nil, count: types.count))
    }

    /// The answer in the binary record encoding; `nil` when a saved record holds an asset
    /// (answered as JSON, whose translator writes its download URL).
    private static func binaryAnswer(
        _ input: Input, outcome: ModifyOutcome, translator: WSRecordTranslator, call: DatabaseCall
    ) -> [UInt8]? {
        var out = StratusRecordEncoding.ModifyAnswerWriter(count: input.operationTypes.count)
        for index in input.operationTypes.indices {
            switch input.plan.slots[index] {
            case .save(let i):
                let (id, result) = outcome.saveResults[i]
                switch result {
                case .success(let record):
                    if RecordWireWriter.hasAssets(record, desiredKeys: input.desiredKeys[index]) { return nil }
                    // Every field: the entry the engine stored is the item as it is.
                    if input.desiredKeys[index] == nil, let stored = outcome.storedRecord(i, containsAsset: false) {
                        out.saved(stored)
                    } else {
                        out.saved(record, desiredKeys: input.desiredKeys[index])
                    }
                case .failure(let error):
                    out.error(
                        ItemError.dictionary(
                            error, recordName: id.recordName, requestID: call.requestID,
                            isCreate: input.operationTypes[index] == "create", translator: translator,
                            numbersAsStrings: false))
                }
            case .delete(let i):
                let (id, result) = outcome.deleteResults[i]
                switch result {
                case .success: out.deleted()
                case .failure(let error):
                    out.error(
                        ItemError.dictionary(
                            error, recordName: id.recordName, requestID: call.requestID, translator: translator,
                            numbersAsStrings: false))
                }
            }
        }
        return out.bytes
    }

    /// The request's `clientChangeTokenData` bytes, if it has one.
    ///
    /// - Throws: 400 `BAD_REQUEST` when the text is not base64.
    private static func clientChangeTokenData(_ body: RecordsModifyRequest) throws(ServerError) -> Data? {
        guard let text = body.clientChangeTokenData else { return nil }
        guard let data = Data(base64Encoded: text) else {
            throw .badRequest("clientChangeTokenData is not base64")
        }
        return data
    }

    /// Writes the answer to operation `index`: its record or tombstone, or its error.
    private static func writeItem(
        _ index: Int, of input: Input, outcome: ModifyOutcome, translator: WSRecordTranslator, call: DatabaseCall,
        into out: inout JSONWriter
    ) {
        let numbersAsStrings = input.numbersAsStrings
        switch input.plan.slots[index] {
        case .save(let i):
            let (id, result) = outcome.saveResults[i]
            switch result {
            case .success(let record):
                translator.write(
                    record, numbersAsStrings: numbersAsStrings, desiredKeys: input.desiredKeys[index], into: &out)
            case .failure(let error):
                out.value(
                    ItemError.dictionary(
                        error, recordName: id.recordName, requestID: call.requestID,
                        isCreate: input.operationTypes[index] == "create", translator: translator,
                        numbersAsStrings: numbersAsStrings))
            }
        case .delete(let i):
            let (id, result) = outcome.deleteResults[i]
            switch result {
            case .success:
                out.value(translator.tombstone(for: id, recordType: nil))
            case .failure(let error):
                out.value(
                    ItemError.dictionary(
                        error, recordName: id.recordName, requestID: call.requestID, translator: translator,
                        numbersAsStrings: numbersAsStrings))
            }
        }
    }
}
