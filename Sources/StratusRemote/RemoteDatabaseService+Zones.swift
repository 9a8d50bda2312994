import Foundation
import Stratus
import StratusBackend
import StratusWebServices

/// Zones: `zones/list`, `zones/lookup` and `zones/modify`.
extension RemoteDatabaseService {
    func fetchZones(_ ids: [CKRecordZone.ID]?) throws -> [(CKRecordZone.ID, Result<CKRecordZone, CKError>)] {
        guard let ids else {
            let answer = try post("zones/list", [:])
            return try items("zones", of: answer, "zones/list").map { item in
                let id = try zoneID(item["zoneID"], "zones/list")
                return (id, try zoneResult(item, "zones/list"))
            }
        }
        var results: [(CKRecordZone.ID, Result<CKRecordZone, CKError>)] = []
        for chunk in ids.chunked(400) {
            let body: JSONValue = ["zones": .array(chunk.map { ["zoneID": translator.dictionary(for: $0)] })]
            let answer = try post("zones/lookup", body)
            let items = try items("zones", of: answer, "zones/lookup")
            guard items.count == chunk.count else {
                throw RemoteFailure.error(
                    .serverResponseLost, "zones/lookup answered \(items.count) zones for \(chunk.count)")
            }
            for (id, item) in zip(chunk, items) { results.append((id, try zoneResult(item, "zones/lookup"))) }
        }
        return results
    }

    func modifyZones(
        saving: [CKRecordZone], deleting: [CKRecordZone.ID],
        journal: ((ZoneModifyOutcome, any BackendWriteTransaction) throws -> Void)?
    ) throws -> ZoneModifyOutcome {
        guard journal == nil else {
            throw RemoteFailure.error(.internalError, "a local long-lived journal cannot commit with a remote modify")
        }
        defer { RemoteChangesPipeline.countWrite() }
        var operations: [JSONValue] = saving.map {
            ["operationType": "create", "zone": ["zoneID": translator.dictionary(for: $0.zoneID)]]
        }
        operations += deleting.map { ["operationType": "delete", "zone": ["zoneID": translator.dictionary(for: $0)]] }
        // Saving a zone again is harmless and deleting twice answers `zoneNotFound`, which a
        // retry could misreport: sent once.
        let answer = try post("zones/modify", ["operations": .array(operations)], retry: .once)
        let items = try items("zones", of: answer, "zones/modify")
        guard items.count == operations.count else {
            throw RemoteFailure.error(
                .serverResponseLost, "zones/modify answered \(items.count) zones for \(operations.count) operations")
        }
        var outcome: ZoneModifyOutcome = ([], [])
        for (zone, item) in zip(saving, items) {
            outcome.saved.append((zone.zoneID, try zoneResult(item, "zones/modify")))
        }
        for (id, item) in zip(deleting, items.dropFirst(saving.count)) {
            outcome.deleted.append((id, isError(item) ? .failure(itemError(item)) : .success(())))
        }
        return outcome
    }

    /// A zone item of an answer: the zone, or its error.
    private func zoneResult(_ item: JSONValue, _ operation: String) throws -> Result<CKRecordZone, CKError> {
        if isError(item) { return .failure(itemError(item)) }
        do {
            return .success(try WSZoneCoding.zone(from: item, translator: translator))
        } catch {
            throw malformed(operation, error)
        }
    }
}

extension Array {
    /// The array in consecutive slices of at most `size` elements.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
