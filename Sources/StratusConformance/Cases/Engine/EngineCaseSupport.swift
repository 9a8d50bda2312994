import Foundation
import Stratus
import StratusBackend

/// What engine-level cases use: a container over the case's backend, and synchronous
/// wrappers that run real operations and collect their callbacks.
extension ConformanceContext {
    /// A container over a newly opened backend handle of the case's storage, or the
    /// storage's own container when it is a ``ContainerStorage``.
    public func container(identifier: String = "iCloud.conformance") throws -> CKContainer {
        if let remote = storage as? any ContainerStorage {
            return try must("a container of the storage") { try remote.container(identifier: identifier) }
        }
        return CKContainer(identifier: identifier, backend: try open())
    }
}

/// Collects values from callbacks that run on operation queues.
final class Collector<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) { lock.withLock { items.append(item) } }
    var values: [T] { lock.withLock { items } }
}

/// Runs operations and waits for them, for conformance cases.
enum Ops {
    /// Adds `operation` to `database` and waits until it finished.
    static func run(_ operation: CKDatabaseOperation, on database: CKDatabase) {
        let done = DispatchSemaphore(value: 0)
        operation.completionBlock = { done.signal() }
        database.add(operation)
        done.wait()
    }

    struct ModifyResult {
        var saved: [CKRecord.ID: Result<CKRecord, any Error>] = [:]
        var deleted: [CKRecord.ID: Result<Void, any Error>] = [:]
        var error: (any Error)?
        func record(_ id: CKRecord.ID) -> CKRecord? { try? saved[id]?.get() }
    }

    /// Saves and deletes through `CKModifyRecordsOperation`.
    @discardableResult
    static func modify(
        _ database: CKDatabase, save: [CKRecord] = [], delete: [CKRecord.ID] = [],
        policy: CKModifyRecordsOperation.RecordSavePolicy = .ifServerRecordUnchanged, atomic: Bool = true,
        clientChangeTokenData: Data? = nil
    ) -> ModifyResult {
        let op = CKModifyRecordsOperation(recordsToSave: save, recordIDsToDelete: delete)
        op.savePolicy = policy
        op.isAtomic = atomic
        op.clientChangeTokenData = clientChangeTokenData
        let saves = Collector<(CKRecord.ID, Result<CKRecord, any Error>)>()
        let deletes = Collector<(CKRecord.ID, Result<Void, any Error>)>()
        let final = Collector<(any Error)?>()
        op.perRecordSaveBlock = { saves.append(($0, $1)) }
        op.perRecordDeleteBlock = { deletes.append(($0, $1)) }
        op.modifyRecordsResultBlock = { result in
            if case .failure(let error) = result { final.append(error) } else { final.append(nil) }
        }
        run(op, on: database)
        var result = ModifyResult()
        for (id, r) in saves.values { result.saved[id] = r }
        for (id, r) in deletes.values { result.deleted[id] = r }
        result.error = final.values.first ?? nil
        return result
    }

    /// Saves records and fails the case unless every one succeeded; returns the saved records.
    static func saveAll(_ database: CKDatabase, _ records: [CKRecord], in context: ConformanceContext) throws
        -> [CKRecord]
    {
        let result = modify(database, save: records)
        if let error = result.error { throw context.failure(expected: "the save succeeds", actual: "\(error)") }
        return try records.map { record in
            switch result.saved[record.recordID] {
            case .success(let saved): return saved
            case .failure(let error):
                throw context.failure(expected: "record \(record.recordID.recordName) saved", actual: "\(error)")
            case nil:
                throw context.failure(expected: "a result for \(record.recordID.recordName)", actual: "none")
            }
        }
    }

    /// Creates custom zones and fails the case unless every one succeeded.
    static func createZones(_ database: CKDatabase, _ names: [String], in context: ConformanceContext) throws
        -> [CKRecordZone.ID]
    {
        let result = modifyZones(database, save: names.map { CKRecordZone(zoneName: $0) })
        for name in names {
            guard case .success = result.saved[CKRecordZone.ID(zoneName: name)] else {
                throw context.failure(
                    expected: "zone \(name) created",
                    actual:
                        "\(String(describing: result.saved[CKRecordZone.ID(zoneName: name)])) \(String(describing: result.error))"
                )
            }
        }
        return names.map { CKRecordZone.ID(zoneName: $0) }
    }

    struct ZoneModifyResult {
        var saved: [CKRecordZone.ID: Result<CKRecordZone, any Error>] = [:]
        var deleted: [CKRecordZone.ID: Result<Void, any Error>] = [:]
        var error: (any Error)?
    }

    /// Saves and deletes zones through `CKModifyRecordZonesOperation`.
    @discardableResult
    static func modifyZones(_ database: CKDatabase, save: [CKRecordZone] = [], delete: [CKRecordZone.ID] = [])
        -> ZoneModifyResult
    {
        let op = CKModifyRecordZonesOperation(recordZonesToSave: save, recordZoneIDsToDelete: delete)
        let saves = Collector<(CKRecordZone.ID, Result<CKRecordZone, any Error>)>()
        let deletes = Collector<(CKRecordZone.ID, Result<Void, any Error>)>()
        let final = Collector<(any Error)?>()
        op.perRecordZoneSaveBlock = { saves.append(($0, $1)) }
        op.perRecordZoneDeleteBlock = { deletes.append(($0, $1)) }
        op.modifyRecordZonesResultBlock = { result in
            if case .failure(let error) = result { final.append(error) } else { final.append(nil) }
        }
        run(op, on: database)
        var result = ZoneModifyResult()
        for (id, r) in saves.values { result.saved[id] = r }
        for (id, r) in deletes.values { result.deleted[id] = r }
        result.error = final.values.first ?? nil
        return result
    }

    /// What a zone change fetch delivered.
    struct ZoneChanges {
        var changed: [CKRecord] = []
        var deleted: [(CKRecord.ID, String)] = []
        var tokensUpdated: [CKServerChangeToken] = []
        var token: CKServerChangeToken?
        var moreComing = false
        var clientChangeTokenData: Data?
        var zoneError: (any Error)?
        var error: (any Error)?
    }

    /// Fetches the changes of one zone through `CKFetchRecordZoneChangesOperation`.
    static func zoneChanges(
        _ database: CKDatabase, _ zoneID: CKRecordZone.ID, since token: CKServerChangeToken?,
        limit: Int = 0, fetchAll: Bool = true, desiredKeys: [String]? = nil
    ) -> ZoneChanges {
        let configuration = CKFetchRecordZoneChangesOperation.ZoneConfiguration(
            previousServerChangeToken: token, resultsLimit: limit, desiredKeys: desiredKeys)
        let op = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: configuration])
        op.fetchAllChanges = fetchAll
        let box = Collector<ZoneChanges>()
        let changed = Collector<CKRecord>()
        let deleted = Collector<(CKRecord.ID, String)>()
        let updated = Collector<CKServerChangeToken>()
        let zoneResult = Collector<
            Result<(serverChangeToken: CKServerChangeToken, clientChangeTokenData: Data?, moreComing: Bool), any Error>
        >()
        let final = Collector<(any Error)?>()
        op.recordWasChangedBlock = { _, result in if let record = try? result.get() { changed.append(record) } }
        op.recordWithIDWasDeletedBlock = { deleted.append(($0, $1)) }
        op.recordZoneChangeTokensUpdatedBlock = { _, token, _ in if let token { updated.append(token) } }
        op.recordZoneFetchResultBlock = { _, result in zoneResult.append(result) }
        op.fetchRecordZoneChangesResultBlock = { result in
            if case .failure(let error) = result { final.append(error) } else { final.append(nil) }
        }
        run(op, on: database)
        var result = ZoneChanges()
        result.changed = changed.values
        result.deleted = deleted.values
        result.tokensUpdated = updated.values
        switch zoneResult.values.first {
        case .success(let value)?:
            result.token = value.serverChangeToken
            result.moreComing = value.moreComing
            result.clientChangeTokenData = value.clientChangeTokenData
        case .failure(let error)?:
            result.zoneError = error
        case nil:
            break
        }
        result.error = final.values.first ?? nil
        box.append(result)
        return result
    }

    /// What a database change fetch delivered.
    struct DatabaseChanges {
        var changed: [CKRecordZone.ID] = []
        var deleted: [CKRecordZone.ID] = []
        var token: CKServerChangeToken?
        var moreComing = false
        var error: (any Error)?
    }

    /// Fetches database changes through `CKFetchDatabaseChangesOperation`.
    static func databaseChanges(_ database: CKDatabase, since token: CKServerChangeToken?) -> DatabaseChanges {
        let op = CKFetchDatabaseChangesOperation(previousServerChangeToken: token)
        let changed = Collector<CKRecordZone.ID>()
        let deleted = Collector<CKRecordZone.ID>()
        let final = Collector<Result<(serverChangeToken: CKServerChangeToken, moreComing: Bool), any Error>>()
        op.recordZoneWithIDChangedBlock = { changed.append($0) }
        op.recordZoneWithIDWasDeletedBlock = { deleted.append($0) }
        op.fetchDatabaseChangesResultBlock = { final.append($0) }
        run(op, on: database)
        var result = DatabaseChanges()
        result.changed = changed.values
        result.deleted = deleted.values
        switch final.values.first {
        case .success(let value)?:
            result.token = value.serverChangeToken
            result.moreComing = value.moreComing
        case .failure(let error)?:
            result.error = error
        case nil:
            break
        }
        return result
    }

    /// What a query page delivered.
    struct QueryResult {
        var records: [CKRecord] = []
        var cursor: CKQueryOperation.Cursor?
        var error: (any Error)?
    }

    /// Runs one page of a query (or a continuation from `cursor`).
    static func query(
        _ database: CKDatabase, _ query: CKQuery? = nil, cursor: CKQueryOperation.Cursor? = nil,
        zoneID: CKRecordZone.ID? = nil, limit: Int = 0, desiredKeys: [String]? = nil
    ) -> QueryResult {
        let op = cursor.map { CKQueryOperation(cursor: $0) } ?? CKQueryOperation(query: query!)
        if cursor != nil, let query { op.query = query }
        op.zoneID = zoneID
        op.resultsLimit = limit
        op.desiredKeys = desiredKeys
        let records = Collector<CKRecord>()
        let final = Collector<Result<CKQueryOperation.Cursor?, any Error>>()
        op.recordMatchedBlock = { _, result in if let record = try? result.get() { records.append(record) } }
        op.queryResultBlock = { final.append($0) }
        run(op, on: database)
        var result = QueryResult()
        result.records = records.values
        switch final.values.first {
        case .success(let cursor)?: result.cursor = cursor
        case .failure(let error)?: result.error = error
        case nil: break
        }
        return result
    }
}

/// The CloudKit error code of `error`, if it is a `CKError`.
func ckCode(_ error: (any Error)?) -> CKError.Code? {
    (error as? CKError)?.code
}

/// A record of `type` named `name` in `zone` with `fields`.
func makeRecord(
    _ name: String, type: String = "Item", zone: CKRecordZone.ID, _ fields: [String: any CKRecordValue] = [:]
) -> CKRecord {
    let record = CKRecord(recordType: type, recordID: CKRecord.ID(recordName: name, zoneID: zone))
    for (key, value) in fields { record[key] = value }
    return record
}
