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

    static func handle(_ call: DatabaseCall) async throws -> Response {
        let body = try call.decode(RecordsModifyRequest.self)
        let translator = call.translator
        let plan = try Plan(body, translator: translator)
        let request = ModifyRequest(
            saves: plan.saves, deletes: plan.deletes, atomic: body.atomic ?? true,
            clientChangeTokenData: try clientChangeTokenData(body))
        let outcome = try await call.modify(request)
        ServerMetrics.recordsSaved(outcome.saveResults.count { if case .success = $0.1 { true } else { false } })
        var out = JSONWriter(capacity: 512 * body.operations.count + 64)
        out.object { answer in
            answer.member("records") {
                $0.array(body.operations.indices) { records, index in
                    writeItem(
                        index, of: body, plan: plan, outcome: outcome, translator: translator, call: call,
                        into: &records)
                }
            }
        }
        return JSONBody.response(out.bytes)
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
        _ index: Int, of body: RecordsModifyRequest, plan: Plan, outcome: ModifyOutcome,
        translator: WSRecordTranslator, call: DatabaseCall, into out: inout JSONWriter
    ) {
        let operation = body.operations[index]
        let numbersAsStrings = body.numbersAsStrings ?? false
        switch plan.slots[index] {
        case .save(let i):
            let (id, result) = outcome.saveResults[i]
            switch result {
            case .success(let record):
                translator.write(
                    record, numbersAsStrings: numbersAsStrings, desiredKeys: operation.desiredKeys ?? body.desiredKeys,
                    into: &out)
            case .failure(let error):
                out.value(
                    ItemError.dictionary(
                        error, recordName: id.recordName, requestID: call.requestID,
                        isCreate: operation.operationType == "create", translator: translator,
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
