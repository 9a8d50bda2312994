import Foundation

/// Query conveniences: thin wrappers over `CKQueryOperation`, one page per call.
extension CKDatabase {
    /// One page of a query: each matching record's result, and a cursor when more remain.
    public typealias QueryPage = (
        matchResults: [(CKRecord.ID, Result<CKRecord, any Error>)], queryCursor: CKQueryOperation.Cursor?
    )

    /// Runs `query` and returns the first page of matches.
    ///
    /// - Parameters:
    ///   - query: the record type, predicate and sort descriptors.
    ///   - zoneID: the zone to search; `nil` searches every zone of the private database.
    ///   - desiredKeys: the fields to fetch; `nil` for all, `[]` for system fields only.
    ///   - resultsLimit: the most records to return (`CKQueryOperation.maximumResults`: the
    ///     server chooses).
    public func records(
        matching query: CKQuery, inZoneWith zoneID: CKRecordZone.ID? = nil,
        desiredKeys: [CKRecord.FieldKey]? = nil, resultsLimit: Int = CKQueryOperation.maximumResults
    ) async throws -> QueryPage {
        try await runConvenience { finish in
            queryOperation(
                CKQueryOperation(query: query), zoneID: zoneID, desiredKeys: desiredKeys, resultsLimit: resultsLimit,
                completion: finish)
        }
    }

    /// Continues a query from `queryCursor`.
    public func records(
        continuingMatchFrom queryCursor: CKQueryOperation.Cursor, desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int = CKQueryOperation.maximumResults
    ) async throws -> QueryPage {
        try await runConvenience { finish in
            queryOperation(
                CKQueryOperation(cursor: queryCursor), zoneID: nil, desiredKeys: desiredKeys,
                resultsLimit: resultsLimit, completion: finish)
        }
    }

    /// Runs `query` and reports the first page of matches to `completionHandler`.
    @preconcurrency
    public func fetch(
        withQuery query: CKQuery, inZoneWith zoneID: CKRecordZone.ID? = nil, desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int = CKQueryOperation.maximumResults,
        completionHandler: @escaping @Sendable (Result<QueryPage, any Error>) -> Void
    ) {
        enqueueConvenience(
            queryOperation(
                CKQueryOperation(query: query), zoneID: zoneID, desiredKeys: desiredKeys, resultsLimit: resultsLimit,
                completion: completionHandler))
    }

    /// Continues a query from `queryCursor` and reports the page to `completionHandler`.
    @preconcurrency
    public func fetch(
        withCursor queryCursor: CKQueryOperation.Cursor, desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int = CKQueryOperation.maximumResults,
        completionHandler: @escaping @Sendable (Result<QueryPage, any Error>) -> Void
    ) {
        enqueueConvenience(
            queryOperation(
                CKQueryOperation(cursor: queryCursor), zoneID: nil, desiredKeys: desiredKeys,
                resultsLimit: resultsLimit, completion: completionHandler))
    }

    /// Deprecated in CloudKit: runs `query` and returns the first page's records.
    @available(macOS, deprecated: 12.0, message: "renamed to records(matching:inZoneWith:desiredKeys:resultsLimit:)")
    @available(iOS, deprecated: 15.0, message: "renamed to records(matching:inZoneWith:desiredKeys:resultsLimit:)")
    @available(tvOS, deprecated: 15.0, message: "renamed to records(matching:inZoneWith:desiredKeys:resultsLimit:)")
    @available(watchOS, deprecated: 8.0, message: "renamed to records(matching:inZoneWith:desiredKeys:resultsLimit:)")
    public func perform(_ query: CKQuery, inZoneWith zoneID: CKRecordZone.ID?) async throws -> [CKRecord] {
        let page = try await records(matching: query, inZoneWith: zoneID)
        return page.matchResults.compactMap { try? $0.1.get() }
    }

    /// Deprecated in CloudKit: runs `query` and reports the first page's records.
    @available(
        macOS, deprecated: 12.0,
        message: "Use fetch(withQuery:inZoneWith:desiredKeys:resultsLimit:completionHandler:) instead"
    )
    @available(
        iOS, deprecated: 15.0,
        message: "Use fetch(withQuery:inZoneWith:desiredKeys:resultsLimit:completionHandler:) instead"
    )
    @available(
        tvOS, deprecated: 15.0,
        message: "Use fetch(withQuery:inZoneWith:desiredKeys:resultsLimit:completionHandler:) instead"
    )
    @available(
        watchOS, deprecated: 8.0,
        message: "Use fetch(withQuery:inZoneWith:desiredKeys:resultsLimit:completionHandler:) instead"
    )
    public func perform(
        _ query: CKQuery, inZoneWith zoneID: CKRecordZone.ID?,
        completionHandler: @escaping @Sendable ([CKRecord]?, (any Error)?) -> Void
    ) {
        fetch(withQuery: query, inZoneWith: zoneID) { result in
            switch result {
            case .success(let page): completionHandler(page.matchResults.compactMap { try? $0.1.get() }, nil)
            case .failure(let error): completionHandler(nil, error)
            }
        }
    }

    private func queryOperation(
        _ operation: CKQueryOperation, zoneID: CKRecordZone.ID?, desiredKeys: [CKRecord.FieldKey]?, resultsLimit: Int,
        completion: @escaping @Sendable (Result<QueryPage, any Error>) -> Void
    ) -> CKQueryOperation {
        operation.zoneID = zoneID
        operation.desiredKeys = desiredKeys
        operation.resultsLimit = resultsLimit
        let matches = ConvenienceBox<[(CKRecord.ID, Result<CKRecord, any Error>)]>([])
        operation.recordMatchedBlock = { id, result in matches.update { $0.append((id, result)) } }
        operation.queryResultBlock = { result in
            completion(result.map { (matchResults: matches.value, queryCursor: $0) })
        }
        return operation
    }
}
