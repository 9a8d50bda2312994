import Foundation
import Stratus

/// A CloudKit layer as apps write it against Apple's SDK, unchanged but for `import Stratus`:
/// a class that is not `Sendable`, whose operation blocks capture `self`, local variables and
/// the caller's completion handlers (which are not `@Sendable` either). Apple documents that an
/// operation's blocks run serially with respect to each other; this code relies on that, and
/// must compile in Swift 6 language mode with warnings as errors.
final class NoteSync {
    let database: CKDatabase
    let zoneID: CKRecordZone.ID
    private(set) var zoneToken: CKServerChangeToken?
    private(set) var databaseToken: CKServerChangeToken?
    private(set) var cache: [CKRecord.ID: CKRecord] = [:]
    private(set) var deletedIDs: [CKRecord.ID] = []
    private(set) var changedZoneIDs: [CKRecordZone.ID] = []
    private(set) var events: [String] = []
    private(set) var failures: [CKRecord.ID: any Error] = [:]

    init(database: CKDatabase, zoneName: String) {
        self.database = database
        self.zoneID = CKRecordZone.ID(zoneName: zoneName, ownerName: CKCurrentUserDefaultName)
    }

    /// Marks an operation long-lived the way sync libraries do: the deprecated property on the
    /// path for old systems, which must still compile.
    private func markLongLived(_ operation: CKOperation) {
        if #available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, *) {
            operation.configuration.isLongLived = true
        } else {
            operation.isLongLived = true
        }
    }

    func createZone(completion: @escaping ((any Error)?) -> Void) {
        let operation = CKModifyRecordZonesOperation(
            recordZonesToSave: [CKRecordZone(zoneID: zoneID)], recordZoneIDsToDelete: nil)
        operation.perRecordZoneSaveBlock = { zoneID, result in
            if case .success = result { self.events.append("zone \(zoneID.zoneName)") }
        }
        operation.modifyRecordZonesResultBlock = { result in
            switch result {
            case .success: completion(nil)
            case .failure(let error): completion(error)
            }
        }
        database.add(operation)
    }

    func save(
        _ records: [CKRecord], policy: CKModifyRecordsOperation.RecordSavePolicy = .changedKeys,
        completion: @escaping (Result<[CKRecord], any Error>) -> Void
    ) {
        var saved: [CKRecord] = []
        let operation = CKModifyRecordsOperation(recordsToSave: records, recordIDsToDelete: nil)
        operation.savePolicy = policy
        operation.isAtomic = false
        markLongLived(operation)
        operation.perRecordSaveBlock = { recordID, result in
            switch result {
            case .success(let record):
                saved.append(record)
                self.cache[recordID] = record
            case .failure(let error):
                self.failures[recordID] = error
            }
        }
        operation.modifyRecordsResultBlock = { result in completion(result.map { saved }) }
        database.add(operation)
    }

    /// The first callback generation, as older code still uses it.
    func saveWithCompletionBlocks(
        _ records: [CKRecord], policy: CKModifyRecordsOperation.RecordSavePolicy = .ifServerRecordUnchanged,
        completion: @escaping ([CKRecord]?, (any Error)?) -> Void
    ) {
        var perRecord = 0
        let operation = CKModifyRecordsOperation(recordsToSave: records, recordIDsToDelete: nil)
        operation.savePolicy = policy
        operation.perRecordCompletionBlock = { record, error in
            if error == nil { perRecord += 1 }
        }
        operation.modifyRecordsCompletionBlock = { saved, _, error in
            self.events.append("legacy save \(perRecord)")
            completion(saved, error)
        }
        database.add(operation)
    }

    func delete(_ recordIDs: [CKRecord.ID], completion: @escaping ((any Error)?) -> Void) {
        let operation = CKModifyRecordsOperation(recordsToSave: nil, recordIDsToDelete: recordIDs)
        operation.perRecordDeleteBlock = { recordID, result in
            if case .success = result { self.cache[recordID] = nil }
        }
        operation.modifyRecordsResultBlock = { result in completion(result.error) }
        database.add(operation)
    }

    func fetchZoneChanges(completion: @escaping ((any Error)?) -> Void) {
        let configuration = CKFetchRecordZoneChangesOperation.ZoneConfiguration()
        configuration.previousServerChangeToken = zoneToken
        let operation = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: configuration])
        operation.recordWasChangedBlock = { recordID, result in
            if case .success(let record) = result { self.cache[recordID] = record }
        }
        operation.recordWithIDWasDeletedBlock = { recordID, _ in
            self.cache[recordID] = nil
            self.deletedIDs.append(recordID)
        }
        operation.recordZoneChangeTokensUpdatedBlock = { _, token, _ in self.zoneToken = token }
        operation.recordZoneFetchResultBlock = { _, result in
            if case .success(let batch) = result { self.zoneToken = batch.serverChangeToken }
        }
        operation.fetchRecordZoneChangesResultBlock = { result in completion(result.error) }
        database.add(operation)
    }

    func fetchDatabaseChanges(completion: @escaping ((any Error)?) -> Void) {
        let operation = CKFetchDatabaseChangesOperation(previousServerChangeToken: databaseToken)
        operation.recordZoneWithIDChangedBlock = { zoneID in self.changedZoneIDs.append(zoneID) }
        operation.recordZoneWithIDWasDeletedBlock = { zoneID in self.events.append("zone deleted \(zoneID.zoneName)") }
        operation.changeTokenUpdatedBlock = { token in self.databaseToken = token }
        operation.fetchDatabaseChangesResultBlock = { result in
            switch result {
            case .success(let final):
                self.databaseToken = final.serverChangeToken
                completion(nil)
            case .failure(let error):
                completion(error)
            }
        }
        database.add(operation)
    }

    func query(
        _ query: CKQuery, limit: Int, cursor: CKQueryOperation.Cursor? = nil,
        completion: @escaping (Result<([CKRecord], CKQueryOperation.Cursor?), any Error>) -> Void
    ) {
        var matched: [CKRecord] = []
        let operation = cursor.map { CKQueryOperation(cursor: $0) } ?? CKQueryOperation(query: query)
        operation.zoneID = zoneID
        operation.resultsLimit = limit
        operation.recordMatchedBlock = { _, result in
            if case .success(let record) = result { matched.append(record) }
        }
        operation.queryResultBlock = { result in completion(result.map { (matched, $0) }) }
        database.add(operation)
    }

    func fetch(_ recordIDs: [CKRecord.ID], completion: @escaping ([CKRecord.ID: Result<CKRecord, any Error>]) -> Void) {
        var results: [CKRecord.ID: Result<CKRecord, any Error>] = [:]
        let operation = CKFetchRecordsOperation(recordIDs: recordIDs)
        operation.desiredKeys = ["title"]
        operation.perRecordResultBlock = { recordID, result in results[recordID] = result }
        operation.fetchRecordsResultBlock = { _ in completion(results) }
        database.add(operation)
    }

    func subscribe(completion: @escaping (Result<[CKSubscription.ID], any Error>) -> Void) {
        var saved: [CKSubscription.ID] = []
        let subscription = CKRecordZoneSubscription(zoneID: zoneID, subscriptionID: "notes-\(zoneID.zoneName)")
        let operation = CKModifySubscriptionsOperation(
            subscriptionsToSave: [subscription], subscriptionIDsToDelete: nil)
        operation.perSubscriptionSaveBlock = { subscriptionID, result in
            if case .success = result { saved.append(subscriptionID) }
        }
        operation.modifySubscriptionsResultBlock = { result in completion(result.map { saved }) }
        database.add(operation)
    }

    func fetchZones(completion: @escaping ([CKRecordZone.ID]) -> Void) {
        var found: [CKRecordZone.ID] = []
        let operation = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
        operation.perRecordZoneResultBlock = { zoneID, result in
            if case .success = result { found.append(zoneID) }
        }
        operation.fetchRecordZonesResultBlock = { _ in completion(found) }
        database.add(operation)
    }
}

extension Result {
    /// The failure, if any.
    fileprivate var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
