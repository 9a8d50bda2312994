import Foundation
import Testing

@testable import Stratus

/// A query that walks the zone, or a sort index, reads at most
/// `DatabaseContext.maximumRecordsReadPerPage` records of its type per page (a sort index's
/// whole groups): with few matches, a page ends short with a cursor after the last record read,
/// and the pages together still hold every match once, in order.
@Suite struct QueryReadBudgetTests {
    /// A zone of 2,000 records more than a page reads, `Doc` `d00000`… with the fields `fill`
    /// sets on record n.
    static func saveDocs(_ fill: (Int, CKRecord) -> Void) async throws -> (CKDatabase, CKRecordZone.ID, Int) {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zone = try await OpsTestKit.makeZone("Big", in: database)
        let count = DatabaseContext.maximumRecordsReadPerPage + 2_000
        for start in stride(from: 0, to: count, by: 400) {
            let records = (start..<min(start + 400, count)).map { n -> CKRecord in
                let record = CKRecord(
                    recordType: "Doc", recordID: CKRecord.ID(recordName: String(format: "d%05d", n), zoneID: zone))
                fill(n, record)
                return record
            }
            _ = try await OpsTestKit.save(records, in: database)
        }
        return (database, zone, count)
    }

    @Test func aPageEndsWhenItsReadingIsSpentAndTheNextContinues() async throws {
        let (database, zone, _) = try await Self.saveDocs { n, record in record["k"] = n % 1_000 == 999 ? 1 : 0 }
        let query = CKQuery(recordType: "Doc", predicate: NSPredicate(format: "k != 0"))
        let first = try await database.records(matching: query, inZoneWith: zone, resultsLimit: 100)
        let firstNames = first.matchResults.map(\.0.recordName)
        #expect(firstNames == (0..<10).map { String(format: "d%05d", $0 * 1_000 + 999) })
        let cursor = try #require(first.queryCursor, "a cursor: the page stopped reading, not matching")
        let second = try await database.records(continuingMatchFrom: cursor, resultsLimit: 100)
        #expect(second.matchResults.map(\.0.recordName) == ["d10999", "d11999"])
        #expect(second.queryCursor == nil)
    }

    /// A sorted query whose filter is on another field walks the sort index: 12,000 records,
    /// one in 1,000 matching.
    @Test func aSortedWalkEndsWhenItsReadingIsSpent() async throws {
        let (database, zone, count) = try await Self.saveDocs { n, record in
            record["k"] = n
            record["g"] = n / 1_000
            record["hit"] = n % 1_000 == 999 || n % 1_000 == 500 ? 1 : 0
            if n % 5_000 == 1 { record["rare"] = n }
        }
        let hits = (0..<count).filter { $0 % 1_000 == 999 || $0 % 1_000 == 500 }
        let name = { (n: Int) in String(format: "d%05d", n) }

        // One record per group: the first 10,000 of the index, then the rest.
        let byK = CKQuery(recordType: "Doc", predicate: NSPredicate(format: "hit == 1"))
        byK.sortDescriptors = [NSSortDescriptor(key: "k", ascending: true)]
        let first = try await database.records(matching: byK, inZoneWith: zone, resultsLimit: 100)
        #expect(first.matchResults.map(\.0.recordName) == hits.filter { $0 < 10_000 }.map(name))
        let cursor = try #require(first.queryCursor, "a cursor: the page stopped reading, not matching")
        let second = try await database.records(continuingMatchFrom: cursor, resultsLimit: 100)
        #expect(second.matchResults.map(\.0.recordName) == hits.filter { $0 >= 10_000 }.map(name))
        #expect(second.queryCursor == nil)

        // Groups of 1,000 sorted inside by a second key: the cursor after the furthest record of
        // the last group read, matching or not; every match once, in order, in small pages too.
        let byG = CKQuery(recordType: "Doc", predicate: NSPredicate(format: "hit == 1"))
        byG.sortDescriptors = [
            NSSortDescriptor(key: "g", ascending: false), NSSortDescriptor(key: "k", ascending: false),
        ]
        for limit in [100, 7] {
            var names: [String] = []
            var pages = 0
            var page = try await database.records(matching: byG, inZoneWith: zone, resultsLimit: limit)
            while true {
                pages += 1
                names += page.matchResults.map(\.0.recordName)
                guard let next = page.queryCursor else { break }
                page = try await database.records(continuingMatchFrom: next, resultsLimit: limit)
            }
            #expect(names == hits.reversed().map(name))
            #expect(pages > (limit == 100 ? 1 : hits.count / limit), "\(pages) pages of \(limit)")
        }

        // A group larger than the budget (the records without `rare`, first), sorted by that
        // field alone: read in pieces by name, so the first page ends inside it after 10,000
        // records and the second goes on from there.
        let byRare = CKQuery(recordType: "Doc", predicate: NSPredicate(format: "hit == 1"))
        byRare.sortDescriptors = [NSSortDescriptor(key: "rare", ascending: true)]
        var names: [String] = []
        var pages = 0
        var page = try await database.records(matching: byRare, inZoneWith: zone, resultsLimit: 100)
        while pages < 10 {
            pages += 1
            names += page.matchResults.map(\.0.recordName)
            guard let next = page.queryCursor else { break }
            page = try await database.records(continuingMatchFrom: next, resultsLimit: 100)
        }
        #expect(names == hits.map(name))
        // Read whole (before pieces), the first page read the whole group and the second
        // ended after the next one, its reading spent: three pages.
        #expect(pages == 2)
    }
}
