import Foundation
import Stratus
import StratusBackend
import StratusWebServices

/// Records: `records/modify` and `records/lookup`.
extension RemoteDatabaseService {
    func modifyRecords(
        _ request: ModifyRequest, cancelled: () -> CKError?,
        journal: ((ModifyOutcome, any BackendWriteTransaction) throws -> Void)?
    ) throws -> ModifyOutcome {
        guard journal == nil else {
            throw RemoteFailure.error(.internalError, "a local long-lived journal cannot commit with a remote modify")
        }
        defer { RemoteChangesPipeline.countWrite() }
        if let outcome = try binaryModify(request, cancelled: cancelled) { return outcome }
        // Assets go first, each to its upload URL; the operations carry their receipts.
        var translator = translator
        translator.assets = RemoteAssetCoder(
            transport: transport, uploaded: try RemoteAssetUploads(service: self).upload(request))
        let operations = RemoteModifyPlan.operations(request, translator: translator)
        if let error = cancelled() { throw error }
        var body: [String: JSONValue] = ["operations": .array(operations), "atomic": .bool(request.atomic)]
        if let data = request.clientChangeTokenData {
            body["clientChangeTokenData"] = .string(data.base64EncodedString())
        }
        // The operation ID makes the modify idempotent (decision 0014.11): a retry after a
        // dropped connection gets the first attempt's outcome, never a second application.
        let id = UUID().uuidString
        let answer = try post("records/modify", .object(body), headers: [("X-Stratus-Operation-ID", id)])
        return try outcome(of: request, json: answer, translator: translator)
    }

    /// The outcome a JSON answer to `request` reports, its records read with `translator`.
    func outcome(of request: ModifyRequest, json answer: JSONValue, translator: WSRecordTranslator? = nil) throws
        -> ModifyOutcome
    {
        let translator = translator ?? self.translator
        let items = try items("records", of: answer, "records/modify")
        let count = request.saves.count + request.deletes.count
        guard items.count == count else {
            throw RemoteFailure.error(
                .serverResponseLost, "records/modify answered \(items.count) items for \(count) operations")
        }
        var outcome = ModifyOutcome(saveResults: [], deleteResults: [])
        for (save, item) in zip(request.saves, items) {
            outcome.saveResults.append((save.id, try savedRecord(item, of: save, translator: translator)))
        }
        for (id, item) in zip(request.deletes, items.dropFirst(request.saves.count)) {
            outcome.deleteResults.append((id, isError(item) ? .failure(itemError(item)) : .success(())))
        }
        return outcome
    }

    /// A save's answer: the stored record, or its error (a conflict with the client's records
    /// added, as the engine reports it).
    private func savedRecord(_ item: JSONValue, of save: ModifyRequest.Save, translator: WSRecordTranslator) throws
        -> Result<CKRecord, CKError>
    {
        if isError(item) { return .failure(save.addingClientRecords(to: itemError(item))) }
        do {
            return .success(try translator.serverRecord(from: item, defaultZone: save.id.zoneID))
        } catch {
            throw malformed("records/modify", error)
        }
    }

    func fetchRecords(_ ids: [CKRecord.ID], desiredKeys: [String]?) throws -> [(
        CKRecord.ID, Result<CKRecord, CKError>
    )] {
        // The engine's limit, checked here as the server cannot see the whole request: it gets
        // one lookup per zone.
        try Validation.checkItemCount(ids.count)
        var results: [CKRecord.ID: Result<CKRecord, CKError>] = [:]
        try readingAssets {
            for (zone, all) in Self.namesByZone(ids) {
                for names in all.chunked(400) {
                    try lookup(Array(names), in: zone, desiredKeys: desiredKeys, into: &results)
                }
            }
        }
        // Each ID once, at its first occurrence, as the engine answers (and a fetch split in
        // parts, `FetchRecordsParts`, asks).
        var seen = Set<CKRecord.ID>()
        return ids.filter { seen.insert($0).inserted }.map {
            ($0, results[$0] ?? .failure(RemoteFailure.error(.unknownItem, "record not found")))
        }
    }

    /// One `records/lookup` of at most 400 `names` in `zone`, its results added to `results`.
    private func lookup(
        _ names: [String], in zone: CKRecordZone.ID, desiredKeys: [String]?,
        into results: inout [CKRecord.ID: Result<CKRecord, CKError>]
    ) throws {
        var body: [String: JSONValue] = [
            "zoneID": translator.dictionary(for: zone),
            "records": .array(names.map { ["recordName": .string($0)] }),
        ]
        if let desiredKeys { body["desiredKeys"] = .array(desiredKeys.map(JSONValue.string)) }
        // Asks for the binary record encoding (decision 0018.10); a server without it answers JSON.
        let answer: JSONValue
        switch try transport.postRecords(scope, "records/lookup", JSONValue.object(body).serialized(), binary: false) {
        case .binary(let bytes): return try lookedUp(names, in: zone, bytes, into: &results)
        case .json(let json): answer = json
        }
        let items = try items("records", of: answer, "records/lookup")
        guard items.count == names.count else {
            throw RemoteFailure.error(
                .serverResponseLost, "records/lookup answered \(items.count) items for \(names.count) names")
        }
        for (name, item) in zip(names, items) {
            let id = CKRecord.ID(recordName: name, zoneID: zone)
            results[id] = isError(item) ? .failure(itemError(item)) : try fetched(item, zone: zone)
        }
    }

    /// The results of a `records/lookup` of `names` in `zone` answered in the binary record
    /// encoding, added to `results`.
    private func lookedUp(
        _ names: [String], in zone: CKRecordZone.ID, _ bytes: [UInt8],
        into results: inout [CKRecord.ID: Result<CKRecord, CKError>]
    ) throws(CKError) {
        let items: [StratusRecordEncoding.ModifyAnswerItem]
        switch Result(catching: { () throws(RecordWireError) -> [StratusRecordEncoding.ModifyAnswerItem] in
            try StratusRecordEncoding.readLookupAnswer(bytes, zoneID: zone, count: names.count)
        }) {
        case .success(let read): items = read
        case .failure(let error):
            throw RemoteFailure.error(
                .serverResponseLost, "the answer to records/lookup cannot be read: \(error.reason)")
        }
        for (name, item) in zip(names, items) {
            let id = CKRecord.ID(recordName: name, zoneID: zone)
            switch item {
            case .saved(let record): results[id] = .success(record)
            case .error(let json): results[id] = .failure(itemError(json))
            case .deleted: break  // refused by the reader
            }
        }
    }

    /// A fetched record's answer as a record.
    private func fetched(_ item: JSONValue, zone: CKRecordZone.ID) throws -> Result<CKRecord, CKError> {
        do {
            return .success(try translator.serverRecord(from: item, defaultZone: zone))
        } catch {
            throw malformed("records/lookup", error)
        }
    }

    /// The distinct record names of `ids`, zone by zone, in first-seen order.
    static func namesByZone(_ ids: [CKRecord.ID]) -> [(CKRecordZone.ID, [String])] {
        var order: [CKRecordZone.ID] = []
        var names: [CKRecordZone.ID: [String]] = [:]
        var seen = Set<CKRecord.ID>()
        for id in ids where seen.insert(id).inserted {
            if names[id.zoneID] == nil { order.append(id.zoneID) }
            names[id.zoneID, default: []].append(id.recordName)
        }
        return order.map { ($0, names[$0] ?? []) }
    }
}
