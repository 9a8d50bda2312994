import Foundation
import Testing

@testable import Stratus

/// An unsorted query that walks the zone reads at most
/// `DatabaseContext.maximumRecordsReadPerPage` records of its type per page: with few matches,
/// a page ends short with a cursor after the last record read, and the pages together still
/// hold every match once, in order.
@Suite struct QueryReadBudgetTests {
    @Test func aPageEndsWhenItsReadingIsSpentAndTheNextContinues() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zone = try await OpsTestKit.makeZone("Big", in: database)
        let count = DatabaseContext.maximumRecordsReadPerPage + 2_000
        for start in stride(from: 0, to: count, by: 400) {
            let records = (start..<min(start + 400, count)).map { n -> CKRecord in
                let record = CKRecord(
                    recordType: "Doc", recordID: CKRecord.ID(recordName: String(format: "d%05d", n), zoneID: zone))
                record["k"] = n % 1_000 == 999 ? 1 : 0
                return record
            }
            _ = try await OpsTestKit.save(records, in: database)
        }
        let query = CKQuery(recordType: "Doc", predicate: NSPredicate(format: "k != 0"))
        let first = try await database.records(matching: query, inZoneWith: zone, resultsLimit: 100)
        let firstNames = first.matchResults.map(\.0.recordName)
        #expect(firstNames == (0..<10).map { String(format: "d%05d", $0 * 1_000 + 999) })
        let cursor = try #require(first.queryCursor, "a cursor: the page stopped reading, not matching")
        let second = try await database.records(continuingMatchFrom: cursor, resultsLimit: 100)
        #expect(second.matchResults.map(\.0.recordName) == ["d10999", "d11999"])
        #expect(second.queryCursor == nil)
    }
}
