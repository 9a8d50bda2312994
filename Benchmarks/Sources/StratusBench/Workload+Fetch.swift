import Stratus

/// The fetches the benchmarks time: zone changes and query pages.
extension Workload {
    /// What one `CKFetchRecordZoneChangesOperation` delivered.
    struct ChangesFetched {
        /// Changed records delivered. Each record's fields are all read, as a sync client
        /// copying them into its own model would, and then dropped.
        var records: Int
        /// Every field value read, folded together (see ``Workload/checksum(of:)``): proof that
        /// the values were decoded, and that two revisions delivered the same data.
        var checksum: UInt64
        /// The zone's final token.
        var token: CKServerChangeToken
    }

    /// Fetches every change of `zoneID` after `token` (`nil`: the whole zone) with one
    /// `CKFetchRecordZoneChangesOperation`, counting the records it delivers and reading every
    /// field of each.
    func fetchChanges(
        _ zoneID: CKRecordZone.ID, since token: CKServerChangeToken?, desiredKeys: [CKRecord.FieldKey]? = nil
    ) throws -> ChangesFetched {
        let configuration = CKFetchRecordZoneChangesOperation.ZoneConfiguration(
            previousServerChangeToken: token, desiredKeys: desiredKeys)
        let operation = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: configuration])
        let state = Locked<(records: Int, checksum: UInt64, token: CKServerChangeToken?, failure: String?)>(
            (0, 0, nil, nil))
        operation.recordWasChangedBlock = { _, result in
            switch result {
            case .success(let record):
                let sum = Workload.checksum(of: record)
                state.update {
                    $0.records += 1
                    $0.checksum &+= sum
                }
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
        return ChangesFetched(records: outcome.records, checksum: outcome.checksum, token: newToken)
    }

    /// Reads every field of `record` (`allKeys()`, then each value) and folds what it read:
    /// each key's length, a string's length and first byte, a number's or a date's bits. So a
    /// record whose fields were decoded lazily pays for decoding them here, as a client would.
    static func checksum(of record: CKRecord) -> UInt64 {
        var sum: UInt64 = 14_695_981_039_346_656_037
        func fold(_ value: UInt64) { sum = (sum ^ value) &* 1_099_511_628_211 }
        for key in record.allKeys() {
            fold(UInt64(key.utf8.count))
            switch record[key] {
            case let value as String:
                fold(UInt64(value.utf8.count))
                fold(UInt64(value.utf8.first ?? 0))
            case let value as Int: fold(UInt64(bitPattern: Int64(value)))
            case let value as Double: fold(value.bitPattern)
            case let value as Date: fold(value.timeIntervalSinceReferenceDate.bitPattern)
            case let value?: fold(UInt64(String(describing: type(of: value)).utf8.count))
            case nil: fold(0)
            }
        }
        return sum
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
