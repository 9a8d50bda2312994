import Foundation

/// Record conveniences: thin wrappers over `CKFetchRecordsOperation` and
/// `CKModifyRecordsOperation`, run on this database's queue, in async and completion-handler
/// forms. Completion handlers run on the operation's callback queue.
extension CKDatabase {
    // MARK: async/await

    /// Fetches the record with `recordID`.
    ///
    /// - Throws: `unknownItem` if the record does not exist, `zoneNotFound` if its zone does
    ///   not, or the request's failure.
    public func record(for recordID: CKRecord.ID) async throws -> CKRecord {
        try await runConvenience { finish in
            fetchRecordsOperation([recordID], desiredKeys: nil) { result in
                finish(result.flatMap { CKDatabase.item(recordID, in: $0) })
            }
        }
    }

    /// Fetches the records with `ids`, each with its own result.
    ///
    /// - Parameters:
    ///   - ids: the records to fetch, at most 400.
    ///   - desiredKeys: the fields to fetch; `nil` for every field, `[]` for the system
    ///     fields only.
    /// - Throws: only for a request-level failure (more than 400 IDs, a store failure, …).
    public func records(
        for ids: [CKRecord.ID], desiredKeys: [CKRecord.FieldKey]? = nil
    ) async throws -> [CKRecord.ID: Result<CKRecord, any Error>] {
        try await runConvenience { finish in
            fetchRecordsOperation(ids, desiredKeys: desiredKeys, completion: finish)
        }
    }

    /// Saves `record`: creates it, or updates it if its change tag matches the server's
    /// (`.ifServerRecordUnchanged`).
    ///
    /// - Returns: the record as saved on the server.
    /// - Throws: the record's error (`serverRecordChanged`, `zoneNotFound`, …) or the
    ///   request's failure.
    public func save(_ record: CKRecord) async throws -> CKRecord {
        let id = record.recordID
        return try await runConvenience { finish in
            modifyRecordsOperation(
                saving: [record], deleting: [], savePolicy: .ifServerRecordUnchanged, atomically: false
            ) { result in
                finish(result.flatMap { CKDatabase.item(id, in: $0.saveResults) })
            }
        }
    }

    /// Deletes the record with `recordID`.
    ///
    /// - Returns: `recordID`.
    /// - Throws: `unknownItem` if the record does not exist, or the request's failure.
    @discardableResult
    public func deleteRecord(withID recordID: CKRecord.ID) async throws -> CKRecord.ID {
        try await runConvenience { finish in
            modifyRecordsOperation(
                saving: [], deleting: [recordID], savePolicy: .ifServerRecordUnchanged, atomically: false
            ) { result in
                finish(result.flatMap { CKDatabase.item(recordID, in: $0.deleteResults).map { recordID } })
            }
        }
    }

    /// Saves and deletes records in one request.
    ///
    /// - Returns: each record's outcome, by record ID. Cascaded deletions are not reported.
    /// - Throws: the request's failure, or, when `atomically` is `true` and some change failed,
    ///   the error of the first failed change (a culprit's error rather than a
    ///   `batchRequestFailed` when there is one).
    public func modifyRecords(
        saving recordsToSave: [CKRecord], deleting recordIDsToDelete: [CKRecord.ID],
        savePolicy: CKModifyRecordsOperation.RecordSavePolicy = .ifServerRecordUnchanged, atomically: Bool = true
    ) async throws -> (
        saveResults: [CKRecord.ID: Result<CKRecord, any Error>], deleteResults: [CKRecord.ID: Result<Void, any Error>]
    ) {
        try await runConvenience { finish in
            modifyRecordsOperation(
                saving: recordsToSave, deleting: recordIDsToDelete, savePolicy: savePolicy, atomically: atomically,
                completion: finish)
        }
    }

    // MARK: Completion handlers

    /// Fetches the record with `recordID` and passes it, or the error, to `completionHandler`.
    public func fetch(
        withRecordID recordID: CKRecord.ID, completionHandler: @escaping @Sendable (CKRecord?, (any Error)?) -> Void
    ) {
        enqueueConvenience(
            fetchRecordsOperation([recordID], desiredKeys: nil) { result in
                switch result.flatMap({ CKDatabase.item(recordID, in: $0) }) {
                case .success(let record): completionHandler(record, nil)
                case .failure(let error): completionHandler(nil, error)
                }
            })
    }

    /// Fetches the records with `recordIDs`, each with its own result, and passes them to
    /// `completionHandler`; the outer result fails only for a request-level failure.
    @preconcurrency
    public func fetch(
        withRecordIDs recordIDs: [CKRecord.ID], desiredKeys: [CKRecord.FieldKey]? = nil,
        completionHandler: @escaping @Sendable (Result<[CKRecord.ID: Result<CKRecord, any Error>], any Error>) -> Void
    ) {
        enqueueConvenience(fetchRecordsOperation(recordIDs, desiredKeys: desiredKeys, completion: completionHandler))
    }

    /// Saves `record` (see `save(_:)`) and passes the saved record, or the error, to
    /// `completionHandler`.
    public func save(_ record: CKRecord, completionHandler: @escaping @Sendable (CKRecord?, (any Error)?) -> Void) {
        let id = record.recordID
        enqueueConvenience(
            modifyRecordsOperation(
                saving: [record], deleting: [], savePolicy: .ifServerRecordUnchanged, atomically: false
            ) { result in
                switch result.flatMap({ CKDatabase.item(id, in: $0.saveResults) }) {
                case .success(let saved): completionHandler(saved, nil)
                case .failure(let error): completionHandler(nil, error)
                }
            })
    }

    /// Deletes the record with `recordID` and passes its ID, or the error, to
    /// `completionHandler`.
    public func delete(
        withRecordID recordID: CKRecord.ID, completionHandler: @escaping @Sendable (CKRecord.ID?, (any Error)?) -> Void
    ) {
        enqueueConvenience(
            modifyRecordsOperation(
                saving: [], deleting: [recordID], savePolicy: .ifServerRecordUnchanged, atomically: false
            ) { result in
                switch result.flatMap({ CKDatabase.item(recordID, in: $0.deleteResults) }) {
                case .success: completionHandler(recordID, nil)
                case .failure(let error): completionHandler(nil, error)
                }
            })
    }

    /// Saves and deletes records in one request (see
    /// `modifyRecords(saving:deleting:savePolicy:atomically:)`) and passes the outcome to
    /// `completionHandler`.
    @preconcurrency
    public func modifyRecords(
        saving recordsToSave: [CKRecord], deleting recordIDsToDelete: [CKRecord.ID],
        savePolicy: CKModifyRecordsOperation.RecordSavePolicy = .ifServerRecordUnchanged, atomically: Bool = true,
        completionHandler:
            @escaping @Sendable (
                Result<
                    (
                        saveResults: [CKRecord.ID: Result<CKRecord, any Error>],
                        deleteResults: [CKRecord.ID: Result<Void, any Error>]
                    ), any Error
                >
            ) -> Void
    ) {
        enqueueConvenience(
            modifyRecordsOperation(
                saving: recordsToSave, deleting: recordIDsToDelete, savePolicy: savePolicy, atomically: atomically,
                completion: completionHandler))
    }

    // MARK: Operations

    /// A fetch operation that reports every record's result, by ID, to `completion`.
    private func fetchRecordsOperation(
        _ ids: [CKRecord.ID], desiredKeys: [CKRecord.FieldKey]?,
        completion: @escaping @Sendable (Result<[CKRecord.ID: Result<CKRecord, any Error>], any Error>) -> Void
    ) -> CKFetchRecordsOperation {
        let operation = CKFetchRecordsOperation(recordIDs: ids)
        operation.desiredKeys = desiredKeys
        let results = ConvenienceBox<[CKRecord.ID: Result<CKRecord, any Error>]>([:])
        operation.perRecordResultBlock = { id, result in results.update { $0[id] = result } }
        operation.fetchRecordsResultBlock = { result in
            completion(result.map { results.value })
        }
        return operation
    }

    /// A modify operation that reports every item's result, by ID, to `completion`; with
    /// `atomically`, a failed item fails the whole result.
    private func modifyRecordsOperation(
        saving recordsToSave: [CKRecord], deleting recordIDsToDelete: [CKRecord.ID],
        savePolicy: CKModifyRecordsOperation.RecordSavePolicy, atomically: Bool,
        completion:
            @escaping @Sendable (
                Result<
                    (
                        saveResults: [CKRecord.ID: Result<CKRecord, any Error>],
                        deleteResults: [CKRecord.ID: Result<Void, any Error>]
                    ), any Error
                >
            ) -> Void
    ) -> CKModifyRecordsOperation {
        let operation = CKModifyRecordsOperation(recordsToSave: recordsToSave, recordIDsToDelete: recordIDsToDelete)
        operation.savePolicy = savePolicy
        operation.isAtomic = atomically
        let saves = ConvenienceBox<[CKRecord.ID: Result<CKRecord, any Error>]>([:])
        let deletes = ConvenienceBox<[CKRecord.ID: Result<Void, any Error>]>([:])
        // Item errors in callback order, to find the one an atomic request throws.
        let failures = ConvenienceBox<[any Error]>([])
        operation.perRecordSaveBlock = { id, result in
            saves.update { $0[id] = result }
            if case .failure(let error) = result { failures.update { $0.append(error) } }
        }
        operation.perRecordDeleteBlock = { id, result in
            deletes.update { $0[id] = result }
            if case .failure(let error) = result { failures.update { $0.append(error) } }
        }
        operation.modifyRecordsResultBlock = { result in
            switch result {
            case .failure(let error):
                completion(.failure(error))
            case .success:
                if atomically, let error = CKDatabase.culprit(failures.value) {
                    completion(.failure(error))
                } else {
                    completion(.success((saveResults: saves.value, deleteResults: deletes.value)))
                }
            }
        }
        return operation
    }

    /// The error an atomic request reports: the first that is not `batchRequestFailed`, else
    /// the first.
    static func culprit(_ errors: [any Error]) -> (any Error)? {
        errors.first { ($0 as? CKError)?.code != .batchRequestFailed } ?? errors.first
    }

    /// The result for `key` among `results`, or `internalError` if the operation did not
    /// report it.
    static func item<Key: Hashable, Value>(
        _ key: Key, in results: [Key: Result<Value, any Error>]
    ) -> Result<Value, any Error> {
        results[key] ?? .failure(CKError.make(.internalError, "the operation reported no result for \(key)"))
    }
}
