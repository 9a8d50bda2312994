import Foundation
import Stratus

/// The batch reads `stratus-bench remote` times besides the drain: records fetched by ID and
/// a sorted query walked in pages, both of a batch's size.
extension Workload {
    /// Fetches `ids` (at most 400) with `CKDatabase.records(for:)` and reads every field of
    /// each (``Workload/checksum(of:)``), as a client copying them would.
    ///
    /// - Returns: the records fetched and their fields' checksum.
    /// - Throws: when the fetch fails or a record is missing.
    func lookup(_ ids: [CKRecord.ID]) throws -> (records: Int, checksum: UInt64) {
        let database = self.database
        let outcome = Locked<Result<(records: Int, checksum: UInt64), BenchmarkFailure>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            defer { done.signal() }
            do {
                let results = try await database.records(for: ids)
                var checksum: UInt64 = 0
                for id in ids {
                    guard case .success(let record)? = results[id] else {
                        outcome.update { $0 = .failure(BenchmarkFailure("lookup: \(id.recordName) not fetched")) }
                        return
                    }
                    checksum &+= Workload.checksum(of: record)
                }
                let fetched = (records: ids.count, checksum: checksum)
                outcome.update { $0 = .success(fetched) }
            } catch {
                outcome.update { $0 = .failure(BenchmarkFailure("lookup: \(error)")) }
            }
        }
        done.wait()
        guard let result = outcome.value else { throw BenchmarkFailure("lookup: no outcome") }
        return try result.get()
    }

    /// Walks `rankQuery()` in `zoneID` through every cursor, `limit` records per page.
    ///
    /// - Returns: the records delivered.
    /// - Throws: when a page fails or ranks come out of order.
    func queryAll(zoneID: CKRecordZone.ID, limit: Int) throws -> Int {
        var cursor: CKQueryOperation.Cursor?
        var delivered = 0
        repeat {
            let page = try queryPage(zoneID: zoneID, after: cursor, limit: limit)
            guard page.ranks == Array(delivered..<(delivered + page.ranks.count)) else {
                throw BenchmarkFailure("query: the page after rank \(delivered) is out of order")
            }
            delivered += page.ranks.count
            cursor = page.cursor
        } while cursor != nil
        return delivered
    }
}
