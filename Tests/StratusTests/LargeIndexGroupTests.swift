import Foundation
import Testing

@testable import Stratus

/// A walk of an index group larger than a page — a Boolean, a field most records lack — reads
/// what the page needs when the group's records tie on every sort key (decision 0005): a page
/// deep inside the group costs what the first one does, and the pages hold every record once,
/// in order (zone, then name, in both directions).
@Suite struct LargeIndexGroupTests {
    /// Two zones of `count` records each, `T` `a0000`… and `b0000`…, `flag` 1 on all but every
    /// 50th (0), `k` its number.
    private static func store(
        _ count: Int
    ) async throws -> (ReadCountingBackend, CKDatabase, [CKRecordZone.ID], [CKRecord]) {
        let backend = ReadCountingBackend()
        let database = CKContainer(identifier: "iCloud.groups", backend: backend).privateCloudDatabase
        var zones: [CKRecordZone.ID] = []
        var all: [CKRecord] = []
        for (prefix, zoneName) in [("a", "A"), ("b", "B")] {
            let zone = try await OpsTestKit.makeZone(zoneName, in: database)
            zones.append(zone)
            for start in stride(from: 0, to: count, by: 400) {
                let records = (start..<min(start + 400, count)).map { n in
                    let record = CKRecord(
                        recordType: "T",
                        recordID: CKRecord.ID(recordName: prefix + String(format: "%04d", n), zoneID: zone))
                    record["flag"] = n % 50 == 0 ? 0 : 1
                    record["k"] = n
                    return record
                }
                _ = try await OpsTestKit.save(records, in: database)
                all += records
            }
        }
        return (backend, database, zones, all)
    }

    /// Every page of `query` in both zones, and the keys each page read.
    private static func pages(
        _ query: CKQuery, limit: Int, in database: CKDatabase, backend: ReadCountingBackend
    ) async throws -> (names: [String], reads: [Int]) {
        var names: [String] = []
        var reads: [Int] = []
        backend.reset()
        var page = try await database.records(matching: query, inZoneWith: nil, resultsLimit: limit)
        while true {
            reads.append(backend.keysRead)
            names += page.matchResults.map(\.0.recordName)
            guard let cursor = page.queryCursor, reads.count < 1_000 else { break }
            backend.reset()
            page = try await database.records(continuingMatchFrom: cursor, resultsLimit: limit)
        }
        return (names, reads)
    }

    /// Pages of 25, and of 30, which end exactly at the last record of the group of 60 (the
    /// next page resumes after it).
    @Test(arguments: [(true, 25), (false, 25), (true, 30), (false, 30)])
    func aSortByOneFieldReadsTheGroupAPageAtATime(ascending: Bool, limit: Int) async throws {
        let (backend, database, zones, records) = try await Self.store(1_500)
        let query = CKQuery(recordType: "T", predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: "flag", ascending: ascending)]
        _ = try await database.records(matching: query, inZoneWith: nil, resultsLimit: 1)  // builds the index
        let (names, reads) = try await Self.pages(query, limit: limit, in: database, backend: backend)

        let expected = records.sorted { a, b in
            let (fa, fb) = (a["flag"] as? Int ?? 0, b["flag"] as? Int ?? 0)
            if fa != fb { return ascending ? fa < fb : fa > fb }
            let (za, zb) = (zones.firstIndex(of: a.recordID.zoneID)!, zones.firstIndex(of: b.recordID.zoneID)!)
            return (za, a.recordID.recordName) < (zb, b.recordID.recordName)
        }
        #expect(names == expected.map(\.recordID.recordName))
        // A page of 25 reads its records, the index entries the two zones' scanners buffer
        // (256 each) and a few more keys (record type, zones): about 570 on every page. Read
        // whole, the group of 2,940 records cost each page inside it twice that many keys, its
        // entries and its records.
        #expect(reads.max() ?? 0 < 1_000, "keys read per page: \(reads)")
    }

    /// An unsorted range (`flag >= 1`) walks the value index in its order, with the same pieces.
    @Test func anUnsortedRangeReadsTheGroupAPageAtATime() async throws {
        let (backend, database, _, records) = try await Self.store(1_500)
        let query = CKQuery(recordType: "T", predicate: NSPredicate(format: "flag >= 1"))
        _ = try await database.records(matching: query, inZoneWith: nil, resultsLimit: 1)  // builds the index
        let (names, reads) = try await Self.pages(query, limit: 25, in: database, backend: backend)
        #expect(names == records.filter { $0["flag"] as? Int == 1 }.map(\.recordID.recordName))
        #expect(reads.max() ?? 0 < 1_000, "keys read per page: \(reads)")
    }

    /// A filter on another field inside the group: a page still reads at most the budget, and
    /// ends inside the group with a cursor after the last record read.
    @Test func aFilteredPageEndsInsideTheGroupWhenItsReadingIsSpent() async throws {
        let (database, zone, count) = try await QueryReadBudgetTests.saveDocs { n, record in
            record["flag"] = 1
            record["hit"] = n % 1_000 == 999 ? 1 : 0
        }
        let query = CKQuery(recordType: "Doc", predicate: NSPredicate(format: "hit == 1"))
        query.sortDescriptors = [NSSortDescriptor(key: "flag", ascending: true)]
        let first = try await database.records(matching: query, inZoneWith: zone, resultsLimit: 100)
        let name = { (n: Int) in String(format: "d%05d", n) }
        #expect(first.matchResults.map(\.0.recordName) == (0..<10).map { name($0 * 1_000 + 999) })
        let cursor = try #require(first.queryCursor, "a cursor: the page stopped reading, not matching")
        let second = try await database.records(continuingMatchFrom: cursor, resultsLimit: 100)
        #expect(second.matchResults.map(\.0.recordName) == (10..<count / 1_000).map { name($0 * 1_000 + 999) })
        #expect(second.queryCursor == nil)
    }

    /// A reference sorts by its record name, then by its zone's name: in a query of several
    /// zones, records referring to records of one name do not tie, and come by zone name (as
    /// the memory sort orders them), not by zone number.
    @Test func referencesOfOneNameInSeveralZonesComeByZoneName() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        var all: [(zone: String, name: String)] = []
        for zoneName in ["Zeta", "Alpha"] {  // Zeta is numbered first
            let zone = try await OpsTestKit.makeZone(zoneName, in: database)
            let owner = CKRecord.Reference(recordID: CKRecord.ID(recordName: "u1", zoneID: zone), action: .none)
            let records = (0..<3).map { n in
                let record = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "t\(n)", zoneID: zone))
                record["owner"] = owner
                return record
            }
            _ = try await OpsTestKit.save(records, in: database)
            all += records.map { (zoneName, $0.recordID.recordName) }
        }
        let query = CKQuery(recordType: "T", predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: "owner", ascending: true)]
        var seen: [String] = []
        var page = try await database.records(matching: query, inZoneWith: nil, resultsLimit: 2)
        while true {
            seen += page.matchResults.map { "\($0.0.zoneID.zoneName)/\($0.0.recordName)" }
            guard let cursor = page.queryCursor, seen.count < 20 else { break }
            page = try await database.records(continuingMatchFrom: cursor, resultsLimit: 2)
        }
        #expect(seen == all.sorted { ($0.zone, $0.name) < ($1.zone, $1.name) }.map { "\($0.zone)/\($0.name)" })
    }
}
