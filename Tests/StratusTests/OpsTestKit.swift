import Foundation
import Stratus
import StratusInMemory
import Testing

/// Helpers shared by the operation and convenience tests.
enum OpsTestKit {
    /// A container over a new, private in-memory store.
    static func makeContainer() -> CKContainer {
        CKContainer(identifier: "iCloud.test", backend: InMemoryBackend())
    }

    /// Runs `operation` on `database` through `add(_:)` and returns once its `completionBlock`
    /// ran, which is after every CloudKit callback.
    static func run(_ operation: CKDatabaseOperation, on database: CKDatabase) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            operation.completionBlock = { continuation.resume() }
            database.add(operation)
        }
    }

    /// Saves `records` in one atomic request and fails the test if any is not saved.
    @discardableResult
    static func save(_ records: [CKRecord], in database: CKDatabase) async throws -> [CKRecord] {
        let results = try await database.modifyRecords(saving: records, deleting: [])
        return try records.map { try results.saveResults[$0.recordID]!.get() }
    }

    /// Creates a custom zone named `name` in the private database.
    static func makeZone(_ name: String, in database: CKDatabase) async throws -> CKRecordZone.ID {
        try await database.save(CKRecordZone(zoneName: name)).zoneID
    }

    /// The CloudKit error code of `error`, if it is a `CKError`.
    static func code(_ error: (any Error)?) -> CKError.Code? {
        (error as? CKError)?.code
    }

    /// The code of the error a result holds, `nil` for a success.
    static func code<T>(_ result: Result<T, any Error>?) -> CKError.Code? {
        guard case .failure(let error) = result else { return nil }
        return code(error)
    }

    /// Follows cursors to exhaustion with `limit` records per page.
    static func walk(_ query: CKQuery, zoneID: CKRecordZone.ID?, limit: Int, in database: CKDatabase) async throws
        -> [CKRecord]
    {
        var records: [CKRecord] = []
        var cursor: CKQueryOperation.Cursor?
        var pages = 0
        repeat {
            let result:
                (matchResults: [(CKRecord.ID, Result<CKRecord, any Error>)], queryCursor: CKQueryOperation.Cursor?)
            if let cursor {
                result = try await database.records(continuingMatchFrom: cursor, resultsLimit: limit)
            } else {
                result = try await database.records(matching: query, inZoneWith: zoneID, resultsLimit: limit)
            }
            #expect(result.matchResults.count <= limit)
            records += try result.matchResults.map { try $0.1.get() }
            cursor = result.queryCursor
            pages += 1
        } while cursor != nil && pages < 1000
        return records
    }
}
