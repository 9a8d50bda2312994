import Stratus

/// The fetches the benchmarks time: zone changes and query pages.
extension Workload {
    /// What one `CKFetchRecordZoneChangesOperation` delivered.
    struct ChangesFetched {
        /// Changed records delivered (their values are dropped at once, as a streaming client
        /// would).
        var records: Int
        /// The zone's final token.
        var token: CKServerChangeToken
    }

    /// Fetches every change of `zoneID` after `token` (`nil`: the whole zone) with one
    /// `CKFetchRecordZoneChangesOperation`, counting the records it delivers.
    func fetchChanges(
        _ zoneID: CKRecordZone.ID, since token: CKServerChangeToken?, desiredKeys: [CKRecord.FieldKey]? = nil
    ) throws -> ChangesFetched {
        let configuration = CKFetchRecordZoneChangesOperation.ZoneConfiguration(
            previousServerChangeToken: token, desiredKeys: desiredKeys)
        let operation = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: configuration])
        let state = Locked<(records: Int, token: CKServerChangeToken?, failure: String?)>((0, nil, nil))
        operation.recordWasChangedBlock = { _, result in
            switch result {
            case .success: state.update { $0.records += 1 }
            case .failure(let error): state.update { $0.failure = $0.failure ?? "\(error)" }
            }
        }
        operation.recordZoneFetchResultBlock = { _, result in
            switch result {
            case .success(let value): state.update { $0.token = value.serverChangeToken }
            case .failure(let error): state.update { $0.failure = $0.failure ?? "\(error)" }
            }
        }
        operation.fetchRecordZoneChangesResultBlock = { result in
            if case .failure(let error) = result { state.update { $0.failure = $0.failure ?? "\(error)" } }
        }
        run(operation)
        let outcome = state.value
        if let failure = outcome.failure { throw BenchmarkFailure("fetching zone changes: \(failure)") }
        guard let newToken = outcome.token else { throw BenchmarkFailure("fetching zone changes: no final token") }
        return ChangesFetched(records: outcome.records, token: newToken)
    }

    /// What one `CKQueryOperation` delivered.
    struct QueryPage {
        /// The ranks of the matched records, in delivery order.
        var ranks: [Int]
        /// The cursor of the next page, or `nil` after the last.
        var cursor: CKQueryOperation.Cursor?
    }

    /// The sorted query the paging benchmark runs: every item of `zoneID`, by rank.
    func rankQuery() -> CKQuery {
        let query = CKQuery(recordType: Workload.itemType, predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: Workload.rankField, ascending: true)]
        return query
    }

    /// Runs one page: the first of `rankQuery()` in `zoneID` when `cursor` is `nil`, else the
    /// page after `cursor`.
    func queryPage(zoneID: CKRecordZone.ID, after cursor: CKQueryOperation.Cursor?, limit: Int) throws -> QueryPage {
        let operation: CKQueryOperation
        if let cursor {
            operation = CKQueryOperation(cursor: cursor)
        } else {
            operation = CKQueryOperation(query: rankQuery())
            operation.zoneID = zoneID
        }
        operation.resultsLimit = limit
        let state = Locked<(ranks: [Int], cursor: CKQueryOperation.Cursor?, failure: String?)>(([], nil, nil))
        operation.recordMatchedBlock = { _, result in
            switch result {
            case .success(let record):
                let rank = record[Workload.rankField] as? Int ?? -1
                state.update { $0.ranks.append(rank) }
            case .failure(let error): state.update { $0.failure = $0.failure ?? "\(error)" }
            }
        }
        operation.queryResultBlock = { result in
            switch result {
            case .success(let next): state.update { $0.cursor = next }
            case .failure(let error): state.update { $0.failure = $0.failure ?? "\(error)" }
            }
        }
        run(operation)
        let outcome = state.value
        if let failure = outcome.failure { throw BenchmarkFailure("querying: \(failure)") }
        return QueryPage(ranks: outcome.ranks, cursor: outcome.cursor)
    }
}
