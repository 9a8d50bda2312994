import Foundation
import Stratus
import StratusInMemory
import StratusWebServices

/// An in-memory engine for the client-direction suites: one private database of user `_caller`.
struct WSClientFixture {
    /// The caller's translator: the caller's zones written under `_caller`.
    let translator = WSRecordTranslator(callerRecordName: "_caller")
    /// The database.
    let database: DatabaseContext

    init() throws {
        let engine = try Engine(backend: InMemoryBackend())
        database = try engine.database(
            namespace: Namespace(container: "iCloud.client", environment: .development, owner: "_caller"),
            scope: .private)
    }

    /// Saves `records` (all keys, atomically) and returns them as saved.
    @discardableResult
    func save(_ records: [CKRecord]) throws -> [CKRecord] {
        let outcome = try database.modifyRecords(
            ModifyRequest(records: records, deletes: [], policy: .allKeys, atomic: true, clientChangeTokenData: nil))
        return try outcome.saveResults.map { try $0.1.get() }
    }

    /// The record as fetched from the engine.
    func fetch(_ id: CKRecord.ID) throws -> CKRecord {
        guard let result = try database.fetchRecords([id], desiredKeys: nil).first?.1 else {
            throw CKError(.unknownItem)
        }
        return try result.get()
    }

    /// `json` as it crosses the wire: serialized and parsed again.
    static func wire(_ json: JSONValue) throws -> JSONValue {
        try JSONValue.parse(json.serializedString())
    }
}
