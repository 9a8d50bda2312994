import Foundation

/// Record zone conveniences: thin wrappers over `CKFetchRecordZonesOperation` and
/// `CKModifyRecordZonesOperation`, run on this database's queue, in async and
/// completion-handler forms. Completion handlers run on the operation's callback queue.
extension CKDatabase {
    // MARK: async/await

    /// Fetches the zone with `zoneID`.
    ///
    /// - Throws: `zoneNotFound` if the zone does not exist, or the request's failure.
    public func recordZone(for zoneID: CKRecordZone.ID) async throws -> CKRecordZone {
        try await runConvenience { finish in
            fetchZonesOperation([zoneID]) { result in
                finish(result.flatMap { CKDatabase.item(zoneID, in: CKDatabase.byID($0)) })
            }
        }
    }

    /// Fetches the zones with `ids`, each with its own result.
    ///
    /// - Throws: only for a request-level failure.
    public func recordZones(
        for ids: [CKRecordZone.ID]
    ) async throws -> [CKRecordZone.ID: Result<CKRecordZone, any Error>] {
        try await runConvenience { finish in
            fetchZonesOperation(ids) { finish($0.map(CKDatabase.byID)) }
        }
    }

    /// Fetches every zone of the database (in the public and private databases the default
    /// zone included).
    public func allRecordZones() async throws -> [CKRecordZone] {
        try await runConvenience { finish in
            fetchZonesOperation(nil) { finish($0.map(CKDatabase.successes)) }
        }
    }

    /// Creates `zone` (or keeps it, if it exists).
    ///
    /// - Returns: the zone as saved, with its capabilities.
    /// - Throws: `badDatabase` outside the private database, or the request's failure.
    public func save(_ zone: CKRecordZone) async throws -> CKRecordZone {
        let id = zone.zoneID
        return try await runConvenience { finish in
            modifyZonesOperation(saving: [zone], deleting: []) { result in
                finish(result.flatMap { CKDatabase.item(id, in: $0.saveResults) })
            }
        }
    }

    /// Deletes the zone with `zoneID` and every record in it.
    ///
    /// - Returns: `zoneID`.
    /// - Throws: `zoneNotFound` if the zone does not exist, `badDatabase` in the public
    ///   database, or the request's failure.
    @discardableResult
    public func deleteRecordZone(withID zoneID: CKRecordZone.ID) async throws -> CKRecordZone.ID {
        try await runConvenience { finish in
            modifyZonesOperation(saving: [], deleting: [zoneID]) { result in
                finish(result.flatMap { CKDatabase.item(zoneID, in: $0.deleteResults).map { zoneID } })
            }
        }
    }

    /// Creates and deletes zones in one request.
    ///
    /// - Returns: each zone's outcome, by zone ID.
    /// - Throws: only for a request-level failure.
    public func modifyRecordZones(
        saving recordZonesToSave: [CKRecordZone], deleting recordZoneIDsToDelete: [CKRecordZone.ID]
    ) async throws -> (
        saveResults: [CKRecordZone.ID: Result<CKRecordZone, any Error>],
        deleteResults: [CKRecordZone.ID: Result<Void, any Error>]
    ) {
        try await runConvenience { finish in
            modifyZonesOperation(saving: recordZonesToSave, deleting: recordZoneIDsToDelete, completion: finish)
        }
    }

    // MARK: Completion handlers

    /// Fetches the zone with `zoneID` and passes it, or the error, to `completionHandler`.
    public func fetch(
        withRecordZoneID zoneID: CKRecordZone.ID,
        completionHandler: @escaping @Sendable (CKRecordZone?, (any Error)?) -> Void
    ) {
        enqueueConvenience(
            fetchZonesOperation([zoneID]) { result in
                switch result.flatMap({ CKDatabase.item(zoneID, in: CKDatabase.byID($0)) }) {
                case .success(let zone): completionHandler(zone, nil)
                case .failure(let error): completionHandler(nil, error)
                }
            })
    }

    /// Fetches the zones with `zoneIDs`, each with its own result, and passes them to
    /// `completionHandler`; the outer result fails only for a request-level failure.
    @preconcurrency
    public func fetch(
        withRecordZoneIDs zoneIDs: [CKRecordZone.ID],
        completionHandler:
            @escaping @Sendable (Result<[CKRecordZone.ID: Result<CKRecordZone, any Error>], any Error>) -> Void
    ) {
        enqueueConvenience(fetchZonesOperation(zoneIDs) { completionHandler($0.map(CKDatabase.byID)) })
    }

    /// Fetches every zone of the database and passes them, or the error, to
    /// `completionHandler`.
    public func fetchAllRecordZones(completionHandler: @escaping @Sendable ([CKRecordZone]?, (any Error)?) -> Void) {
        enqueueConvenience(
            fetchZonesOperation(nil) { result in
                switch result {
                case .success(let zones): completionHandler(CKDatabase.successes(zones), nil)
                case .failure(let error): completionHandler(nil, error)
                }
            })
    }

    /// Creates `zone` (see `save(_:)`) and passes the saved zone, or the error, to
    /// `completionHandler`.
    public func save(_ zone: CKRecordZone, completionHandler: @escaping @Sendable (CKRecordZone?, (any Error)?) -> Void)
    {
        let id = zone.zoneID
        enqueueConvenience(
            modifyZonesOperation(saving: [zone], deleting: []) { result in
                switch result.flatMap({ CKDatabase.item(id, in: $0.saveResults) }) {
                case .success(let saved): completionHandler(saved, nil)
                case .failure(let error): completionHandler(nil, error)
                }
            })
    }

    /// Deletes the zone with `zoneID` and passes its ID, or the error, to `completionHandler`.
    public func delete(
        withRecordZoneID zoneID: CKRecordZone.ID,
        completionHandler: @escaping @Sendable (CKRecordZone.ID?, (any Error)?) -> Void
    ) {
        enqueueConvenience(
            modifyZonesOperation(saving: [], deleting: [zoneID]) { result in
                switch result.flatMap({ CKDatabase.item(zoneID, in: $0.deleteResults) }) {
                case .success: completionHandler(zoneID, nil)
                case .failure(let error): completionHandler(nil, error)
                }
            })
    }

    /// Creates and deletes zones in one request and passes each zone's outcome to
    /// `completionHandler`; the outer result fails only for a request-level failure.
    @preconcurrency
    public func modifyRecordZones(
        saving recordZonesToSave: [CKRecordZone], deleting recordZoneIDsToDelete: [CKRecordZone.ID],
        completionHandler:
            @escaping @Sendable (
                Result<
                    (
                        saveResults: [CKRecordZone.ID: Result<CKRecordZone, any Error>],
                        deleteResults: [CKRecordZone.ID: Result<Void, any Error>]
                    ), any Error
                >
            ) -> Void
    ) {
        enqueueConvenience(
            modifyZonesOperation(
                saving: recordZonesToSave, deleting: recordZoneIDsToDelete, completion: completionHandler))
    }

    // MARK: Operations

    /// A fetch operation (of every zone when `ids` is `nil`) that reports every zone's result,
    /// in the operation's order, to `completion`.
    private func fetchZonesOperation(
        _ ids: [CKRecordZone.ID]?,
        completion:
            @escaping @Sendable (Result<[(CKRecordZone.ID, Result<CKRecordZone, any Error>)], any Error>) -> Void
    ) -> CKFetchRecordZonesOperation {
        let operation = CKFetchRecordZonesOperation()
        operation.recordZoneIDs = ids
        let results = ConvenienceBox<[(CKRecordZone.ID, Result<CKRecordZone, any Error>)]>([])
        operation.perRecordZoneResultBlock = { id, result in results.update { $0.append((id, result)) } }
        operation.fetchRecordZonesResultBlock = { result in
            completion(result.map { results.value })
        }
        return operation
    }

    /// A modify operation that reports every zone's result, by ID, to `completion`.
    private func modifyZonesOperation(
        saving recordZonesToSave: [CKRecordZone], deleting recordZoneIDsToDelete: [CKRecordZone.ID],
        completion:
            @escaping @Sendable (
                Result<
                    (
                        saveResults: [CKRecordZone.ID: Result<CKRecordZone, any Error>],
                        deleteResults: [CKRecordZone.ID: Result<Void, any Error>]
                    ), any Error
                >
            ) -> Void
    ) -> CKModifyRecordZonesOperation {
        let operation = CKModifyRecordZonesOperation(
            recordZonesToSave: recordZonesToSave, recordZoneIDsToDelete: recordZoneIDsToDelete)
        let saves = ConvenienceBox<[CKRecordZone.ID: Result<CKRecordZone, any Error>]>([:])
        let deletes = ConvenienceBox<[CKRecordZone.ID: Result<Void, any Error>]>([:])
        operation.perRecordZoneSaveBlock = { id, result in saves.update { $0[id] = result } }
        operation.perRecordZoneDeleteBlock = { id, result in deletes.update { $0[id] = result } }
        operation.modifyRecordZonesResultBlock = { result in
            completion(result.map { (saveResults: saves.value, deleteResults: deletes.value) })
        }
        return operation
    }

    /// Ordered per-item results as a dictionary (an ID listed twice is answered once anyway).
    static func byID<Key: Hashable, Value>(_ results: [(Key, Result<Value, any Error>)]) -> [Key: Result<
        Value, any Error
    >] {
        Dictionary(results, uniquingKeysWith: { first, _ in first })
    }

    /// The values of the successful results, in order.
    static func successes<Key, Value>(_ results: [(Key, Result<Value, any Error>)]) -> [Value] {
        results.compactMap { try? $0.1.get() }
    }
}
