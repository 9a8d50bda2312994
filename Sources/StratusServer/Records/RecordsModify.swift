import Foundation
import Hummingbird
internal import Stratus

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
            saves: plan.saves, deletes: plan.deletes, atomic: body.atomic ?? true, clientChangeTokenData: nil)
        let outcome = try await call.modify(request)
        ServerMetrics.recordsSaved(outcome.saveResults.count { if case .success = $0.1 { true } else { false } })
        let numbersAsStrings = body.numbersAsStrings ?? false
        var records: [JSONValue] = []
        records.reserveCapacity(body.operations.count)
        for (index, operation) in body.operations.enumerated() {
            let desired = operation.desiredKeys ?? body.desiredKeys
            switch plan.slots[index] {
            case .save(let i):
                let (id, result) = outcome.saveResults[i]
                switch result {
                case .success(let record):
                    records.append(
                        translator.dictionary(for: record, numbersAsStrings: numbersAsStrings, desiredKeys: desired))
                case .failure(let error):
                    records.append(
                        ItemError.dictionary(
                            error, recordName: id.recordName, requestID: call.requestID,
                            isCreate: operation.operationType == "create", translator: translator,
                            numbersAsStrings: numbersAsStrings))
                }
            case .delete(let i):
                let (id, result) = outcome.deleteResults[i]
                switch result {
                case .success:
                    records.append(translator.tombstone(for: id, recordType: nil))
                case .failure(let error):
                    records.append(
                        ItemError.dictionary(
                            error, recordName: id.recordName, requestID: call.requestID, translator: translator,
                            numbersAsStrings: numbersAsStrings))
                }
            }
        }
        return call.respond(["records": .array(records)])
    }
}
