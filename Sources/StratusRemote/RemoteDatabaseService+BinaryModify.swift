import Foundation
import Stratus
import StratusWebServices

/// `records/modify` in the binary record encoding (decision 0018): the same operations as
/// ``RemoteModifyPlan``'s JSON, sent once the server advertised the encoding and when no
/// record sends an asset (whose upload receipt is the JSON translator's work).
extension RemoteDatabaseService {
    /// The outcome of `request` sent in the binary record encoding; `nil` when it is to be
    /// sent as JSON.
    func binaryModify(_ request: ModifyRequest, cancelled: () -> CKError?) throws -> ModifyOutcome? {
        guard transport.sendsRecordEncoding else { return nil }
        let planned = request.saves.map { RemoteModifyPlan.operationType($0, policy: request.policy) }
        for (save, plan) in zip(request.saves, planned) where RecordWireWriter.hasAssets(save.record, keys: plan.1) {
            return nil
        }
        var out = StratusRecordEncoding.ModifyRequestWriter(
            atomic: request.atomic, clientChangeTokenData: request.clientChangeTokenData,
            count: request.saves.count + request.deletes.count)
        for (save, plan) in zip(request.saves, planned) {
            out.save(
                save.record, operationType: plan.0, keys: plan.1,
                owner: translator.ownerRecordName(of: save.id.zoneID))
        }
        for (index, id) in request.deletes.enumerated() {
            var tag: String?
            if case .ifChangeTag(let changeTag) = request.deleteMode(index) { tag = changeTag }
            out.delete(id, changeTag: tag, owner: translator.ownerRecordName(of: id.zoneID))
        }
        if let error = cancelled() { throw error }
        // The operation ID makes the modify idempotent (decision 0014.11), as for JSON.
        let answer = try transport.postRecords(
            scope, "records/modify", out.bytes, binary: true,
            headers: [("X-Stratus-Operation-ID", UUID().uuidString)])
        switch answer {
        case .binary(let bytes): return try outcome(of: request, bytes)
        case .json(let json): return try outcome(of: request, json: json)
        }
    }

    /// The outcome an answer in the binary record encoding reports.
    private func outcome(of request: ModifyRequest, _ bytes: [UInt8]) throws(CKError) -> ModifyOutcome {
        let zones = request.saves.map(\.id.zoneID) + request.deletes.map(\.zoneID)
        let items: [StratusRecordEncoding.ModifyAnswerItem]
        switch Result(catching: { () throws(RecordWireError) -> [StratusRecordEncoding.ModifyAnswerItem] in
            try StratusRecordEncoding.readModifyAnswer(bytes, zones: zones)
        }) {
        case .success(let read): items = read
        case .failure(let error):
            throw RemoteFailure.error(
                .serverResponseLost, "the answer to records/modify cannot be read: \(error.reason)")
        }
        var outcome = ModifyOutcome(saveResults: [], deleteResults: [])
        outcome.saveResults.reserveCapacity(request.saves.count)
        for (save, item) in zip(request.saves, items) {
            switch item {
            case .saved(let record): outcome.saveResults.append((save.id, .success(record)))
            case .error(let json):
                outcome.saveResults.append((save.id, .failure(save.addingClientRecords(to: itemError(json)))))
            case .deleted:
                throw RemoteFailure.error(.serverResponseLost, "records/modify answered a save with a deletion")
            }
        }
        for (id, item) in zip(request.deletes, items.dropFirst(request.saves.count)) {
            switch item {
            case .deleted: outcome.deleteResults.append((id, .success(())))
            case .error(let json): outcome.deleteResults.append((id, .failure(itemError(json))))
            case .saved:
                throw RemoteFailure.error(.serverResponseLost, "records/modify answered a delete with a record")
            }
        }
        return outcome
    }
}
