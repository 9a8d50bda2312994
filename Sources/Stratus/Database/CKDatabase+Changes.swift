import Foundation

/// Change conveniences: one batch of `CKFetchDatabaseChangesOperation` or
/// `CKFetchRecordZoneChangesOperation` per call (`moreComing` says whether to call again).
extension CKDatabase {
    /// One batch of database changes.
    public typealias DatabaseChangesBatch = (
        modifications: [DatabaseChange.Modification], deletions: [DatabaseChange.Deletion],
        changeToken: CKServerChangeToken, moreComing: Bool
    )

    /// One batch of a zone's record changes.
    public typealias RecordZoneChangesBatch = (
        modificationResultsByID: [CKRecord.ID: Result<RecordZoneChange.Modification, any Error>],
        deletions: [RecordZoneChange.Deletion], changeToken: CKServerChangeToken, moreComing: Bool
    )

    /// The zones that changed or were deleted since `changeToken` (`nil`: every zone).
    public func databaseChanges(
        since changeToken: CKServerChangeToken?, resultsLimit: Int? = nil
    ) async throws -> DatabaseChangesBatch {
        try await runConvenience { finish in
            databaseChangesOperation(since: changeToken, resultsLimit: resultsLimit, completion: finish)
        }
    }

    /// Reports the zones that changed or were deleted since `changeToken`.
    @preconcurrency
    public func fetchDatabaseChanges(
        since changeToken: CKServerChangeToken?, resultsLimit: Int? = nil,
        completionHandler: @escaping @Sendable (Result<DatabaseChangesBatch, any Error>) -> Void
    ) {
        enqueueConvenience(
            databaseChangesOperation(since: changeToken, resultsLimit: resultsLimit, completion: completionHandler))
    }

    /// The records of `zoneID` that changed or were deleted since `changeToken` (`nil`: the
    /// whole zone).
    public func recordZoneChanges(
        inZoneWith zoneID: CKRecordZone.ID, since changeToken: CKServerChangeToken?,
        desiredKeys: [CKRecord.FieldKey]? = nil, resultsLimit: Int? = nil
    ) async throws -> RecordZoneChangesBatch {
        try await runConvenience { finish in
            zoneChangesOperation(
                zoneID, since: changeToken, desiredKeys: desiredKeys, resultsLimit: resultsLimit, completion: finish)
        }
    }

    /// Reports the records of `zoneID` that changed or were deleted since `changeToken`.
    @preconcurrency
    public func fetchRecordZoneChanges(
        inZoneWith zoneID: CKRecordZone.ID, since changeToken: CKServerChangeToken?,
        desiredKeys: [CKRecord.FieldKey]? = nil, resultsLimit: Int? = nil,
        completionHandler: @escaping @Sendable (Result<RecordZoneChangesBatch, any Error>) -> Void
    ) {
        enqueueConvenience(
            zoneChangesOperation(
                zoneID, since: changeToken, desiredKeys: desiredKeys, resultsLimit: resultsLimit,
                completion: completionHandler))
    }

    private func databaseChangesOperation(
        since changeToken: CKServerChangeToken?, resultsLimit: Int?,
        completion: @escaping @Sendable (Result<DatabaseChangesBatch, any Error>) -> Void
    ) -> CKFetchDatabaseChangesOperation {
        let operation = CKFetchDatabaseChangesOperation(previousServerChangeToken: changeToken)
        operation.fetchAllChanges = false
        operation.resultsLimit = resultsLimit ?? 0
        let modifications = ConvenienceBox<[DatabaseChange.Modification]>([])
        let deletions = ConvenienceBox<[DatabaseChange.Deletion]>([])
        operation.recordZoneWithIDChangedBlock = { id in modifications.update { $0.append(.init(zoneID: id)) } }
        operation.recordZoneWithIDWasDeletedBlock = { id in
            deletions.update { $0.append(.init(zoneID: id, reason: .deleted)) }
        }
        operation.recordZoneWithIDWasPurgedBlock = { id in
            deletions.update { $0.append(.init(zoneID: id, reason: .purged)) }
        }
        operation.recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock = { id in
            deletions.update { $0.append(.init(zoneID: id, reason: .encryptedDataReset)) }
        }
        operation.fetchDatabaseChangesResultBlock = { result in
            completion(
                result.map {
                    (
                        modifications: modifications.value, deletions: deletions.value,
                        changeToken: $0.serverChangeToken, moreComing: $0.moreComing
                    )
                })
        }
        return operation
    }

    private func zoneChangesOperation(
        _ zoneID: CKRecordZone.ID, since changeToken: CKServerChangeToken?, desiredKeys: [CKRecord.FieldKey]?,
        resultsLimit: Int?, completion: @escaping @Sendable (Result<RecordZoneChangesBatch, any Error>) -> Void
    ) -> CKFetchRecordZoneChangesOperation {
        let configuration = CKFetchRecordZoneChangesOperation.ZoneConfiguration(
            previousServerChangeToken: changeToken, resultsLimit: resultsLimit, desiredKeys: desiredKeys)
        let operation = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: configuration])
        operation.fetchAllChanges = false
        let modifications = ConvenienceBox<[CKRecord.ID: Result<RecordZoneChange.Modification, any Error>]>([:])
        let deletions = ConvenienceBox<[RecordZoneChange.Deletion]>([])
        let zoneResult = ConvenienceBox<
            Result<(serverChangeToken: CKServerChangeToken, clientChangeTokenData: Data?, moreComing: Bool), any Error>?
        >(nil)
        operation.recordWasChangedBlock = { id, result in
            modifications.update { $0[id] = result.map { RecordZoneChange.Modification(record: $0) } }
        }
        operation.recordWithIDWasDeletedBlock = { id, type in
            deletions.update { $0.append(RecordZoneChange.Deletion(recordID: id, recordType: type)) }
        }
        operation.recordZoneFetchResultBlock = { _, result in zoneResult.update { $0 = result } }
        operation.fetchRecordZoneChangesResultBlock = { result in
            if case .failure(let error) = result {
                completion(.failure(error))
                return
            }
            switch zoneResult.value {
            case .success(let value)?:
                completion(
                    .success(
                        (
                            modificationResultsByID: modifications.value, deletions: deletions.value,
                            changeToken: value.serverChangeToken,
                            moreComing: value.moreComing
                        )))
            case .failure(let error)?:
                completion(.failure(error))
            case nil:
                completion(.failure(CKError.make(.internalError, "the zone fetch reported no result")))
            }
        }
        return operation
    }
}
