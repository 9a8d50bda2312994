import Foundation
import Stratus

/// Read-side helpers shared by the query, zone and modify cases: fetching records and zones by
/// ID, following query cursors, and describing results for failure messages.
enum Reads {
    /// What a `CKFetchRecordsOperation` delivered: one result per ID, how often each ID was
    /// answered, and the operation's final error.
    struct Fetched {
        var results: [CKRecord.ID: Result<CKRecord, any Error>] = [:]
        var calls: [CKRecord.ID: Int] = [:]
        var error: (any Error)?
    }

    /// Fetches records by ID through `CKFetchRecordsOperation`.
    static func fetch(_ database: CKDatabase, _ ids: [CKRecord.ID], desiredKeys: [String]? = nil) -> Fetched {
        let op = CKFetchRecordsOperation(recordIDs: ids)
        op.desiredKeys = desiredKeys
        let items = Collector<(CKRecord.ID, Result<CKRecord, any Error>)>()
        let final = Collector<(any Error)?>()
        op.perRecordResultBlock = { items.append(($0, $1)) }
        op.fetchRecordsResultBlock = { result in
            if case .failure(let error) = result { final.append(error) } else { final.append(nil) }
        }
        Ops.run(op, on: database)
        var fetched = Fetched()
        for (id, result) in items.values {
            fetched.results[id] = result
            fetched.calls[id, default: 0] += 1
        }
        fetched.error = final.values.first ?? nil
        return fetched
    }

    /// The stored record with `id`; fails the case if it cannot be fetched.
    static func record(_ database: CKDatabase, _ id: CKRecord.ID, in context: ConformanceContext) throws -> CKRecord {
        let fetched = fetch(database, [id])
        if let error = fetched.error {
            throw context.failure(
                expected: "record '\(id.recordName)' can be fetched", actual: "the fetch failed: \(error)")
        }
        switch fetched.results[id] {
        case .success(let record)?:
            return record
        case .failure(let error)?:
            throw context.failure(
                expected: "record '\(id.recordName)' exists", actual: "fetch error \(describe(error))")
        case nil:
            throw context.failure(expected: "a fetch result for record '\(id.recordName)'", actual: "none")
        }
    }

    /// Fails the case unless fetching `id` fails with `code` (a record that must not exist).
    static func expectAbsent(
        _ database: CKDatabase, _ id: CKRecord.ID, code: CKError.Code = .unknownItem, in context: ConformanceContext
    ) throws {
        let fetched = fetch(database, [id])
        if let error = fetched.error {
            throw context.failure(
                expected: "fetching record '\(id.recordName)' answers per item",
                actual: "the whole fetch failed: \(error)")
        }
        let result = fetched.results[id]
        try context.expect(
            errorCode(result) == code,
            "fetching record '\(id.recordName)' fails with \(code.name) (the record must not exist)",
            actual: describe(result))
    }

    /// The zones with `ids` (every zone for `nil`) through `CKFetchRecordZonesOperation`.
    static func zones(
        _ database: CKDatabase, _ ids: [CKRecordZone.ID]?
    ) -> (results: [CKRecordZone.ID: Result<CKRecordZone, any Error>], error: (any Error)?) {
        let op =
            ids.map { CKFetchRecordZonesOperation(recordZoneIDs: $0) }
            ?? CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
        let items = Collector<(CKRecordZone.ID, Result<CKRecordZone, any Error>)>()
        let final = Collector<(any Error)?>()
        op.perRecordZoneResultBlock = { items.append(($0, $1)) }
        op.fetchRecordZonesResultBlock = { result in
            if case .failure(let error) = result { final.append(error) } else { final.append(nil) }
        }
        Ops.run(op, on: database)
        var results: [CKRecordZone.ID: Result<CKRecordZone, any Error>] = [:]
        for (id, result) in items.values { results[id] = result }
        return (results, final.values.first ?? nil)
    }

    /// Every page of `query`, following cursors until none is returned.
    ///
    /// Fails the case on an error, on a page larger than `limit` (when `limit > 0`), or after
    /// `maxPages` pages (a cursor loop).
    static func allPages(
        _ database: CKDatabase, _ query: CKQuery, zoneID: CKRecordZone.ID? = nil, limit: Int,
        desiredKeys: [String]? = nil, maxPages: Int = 200, in context: ConformanceContext
    ) throws -> [[CKRecord]] {
        var pages: [[CKRecord]] = []
        var page = Ops.query(database, query, zoneID: zoneID, limit: limit, desiredKeys: desiredKeys)
        while true {
            if let error = page.error {
                throw context.failure(
                    expected: "page \(pages.count + 1) of the query succeeds", actual: describe(error))
            }
            if limit > 0 {
                try context.expect(
                    page.records.count <= limit,
                    "page \(pages.count + 1) holds at most resultsLimit = \(limit) records",
                    actual: "\(page.records.count) records")
            }
            pages.append(page.records)
            guard let cursor = page.cursor else { return pages }
            try context.expect(
                pages.count < maxPages, "the cursors end within \(maxPages) pages",
                actual: "page \(pages.count) still returned a cursor")
            page = Ops.query(database, cursor: cursor, limit: limit, desiredKeys: desiredKeys)
        }
    }

    /// The CloudKit error code of a per-item result, `nil` for a success or a missing result.
    static func errorCode<T>(_ result: Result<T, any Error>?) -> CKError.Code? {
        guard case .failure(let error)? = result else { return nil }
        return ckCode(error)
    }

    /// A per-item result for a failure message.
    static func describe<T>(_ result: Result<T, any Error>?) -> String {
        switch result {
        case nil: return "no result"
        case .success?: return "success"
        case .failure(let error)?: return describe(error)
        }
    }

    /// An error for a failure message: its CloudKit code name and message.
    static func describe(_ error: (any Error)?) -> String {
        guard let error else { return "no error" }
        if let code = ckCode(error) { return "\(code.name) (\(error.localizedDescription))" }
        return "\(error)"
    }

    /// Record names, sorted, for comparing sets of records in messages.
    static func names(_ records: [CKRecord]) -> [String] {
        records.map(\.recordID.recordName).sorted()
    }

    /// Record names, sorted, of IDs.
    static func names(_ ids: [CKRecord.ID]) -> [String] {
        ids.map(\.recordName).sorted()
    }
}
