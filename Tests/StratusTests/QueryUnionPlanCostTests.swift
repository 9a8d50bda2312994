import Foundation
import Stratus
import Testing

/// Unions, intersections and a list's prefix (decision 0019.8) read what their pages need,
/// not the zone (an intersection whose first group holds every record included):
/// the keys read, counted in the store, barely change when the zone grows eightfold, and a
/// query continued from a cursor keeps reading little.
@Suite struct QueryUnionPlanCostTests {
    /// A store of `count` records `r<i>`: `tags = ["tag%05d" of i, "all", "m<i % 3>"]`,
    /// `title = "t%06d word"`, `k = i / 3`.
    private static func store(_ count: Int) async throws -> (ReadCountingBackend, CKDatabase, CKRecordZone.ID) {
        let backend = ReadCountingBackend()
        let database = CKContainer(identifier: "iCloud.unions", backend: backend).privateCloudDatabase
        let zone = try await OpsTestKit.makeZone("Z", in: database)
        for start in stride(from: 0, to: count, by: 400) {
            let records = (start..<min(start + 400, count)).map { i in
                let record = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "r\(i)", zoneID: zone))
                record["tags"] = [String(format: "tag%05d", i), "all", "m\(i % 3)"]
                record["title"] = String(format: "t%06d word", i)
                record["k"] = i / 3
                return record
            }
            _ = try await OpsTestKit.save(records, in: database)
        }
        return (backend, database, zone)
    }

    nonisolated(unsafe) static let predicates: [(String, [Any], Int)] = [
        ("tags IN %@", [["tag00005", "TAG00077", "tag00123", "nothing"]], 3),
        ("ANY tags IN %@", [["tag00005", "tag00123"]], 2),
        ("ANY tags BEGINSWITH %@", ["tag0012"], 10),
        ("self CONTAINS %@", ["t000123 T000456 absent"], 2),
        ("self CONTAINS %@", ["the a"], 0),
        ("tags CONTAINS %@", [["all", "tag00123"]], 1),
        ("tags CONTAINS %@ AND tags CONTAINS %@", ["m2", "tag00124"], 0),
        ("self CONTAINS %@ AND self CONTAINS %@", ["word", "t000123"], 1),
        // A union or membership AND-ed with another exact term, the large one written first
        // (decision 0019.9): walked together by name, not driven by the first. The small
        // groups are records r4xx, which no longer name of the 4000-record zone falls between
        // (r1230…r1239 lie between r123 and r124 there): the walk reads ahead of its matches
        // up to a read's size, and names in between would be read ahead of the match.
        ("tags IN %@ AND title == %@", [["m1", "m2"], "T000124 WORD"], 1),
        ("self CONTAINS %@ AND tags IN %@", ["word", ["tag00005", "tag00123"]], 2),
        ("tags CONTAINS %@ AND tags IN %@", ["all", ["tag00005", "tag00077"]], 2),
        ("tags IN %@ AND k == %@", [["m0", "m1"], 141], 2),
        ("ANY tags IN %@ AND k IN %@", [["m0", "m2"], [141, 150]], 4),
        ("self CONTAINS %@ AND k == %@", ["word t000424", 141], 3),
    ]

    @Test(arguments: predicates.indices)
    func readsDependOnTheMatchesNotTheZone(_ index: Int) async throws {
        let (format, args, matches) = Self.predicates[index]
        let reads = try await QueryCostProbe.readsOverGrowingZones(
            format, args, suite: "QueryUnionPlanCostTests", expected: { _ in matches }, store: Self.store)
        #expect(reads[1] <= reads[0] + 8, "\(format): \(reads[0]) keys read over 500 records, \(reads[1]) over 4000")
        #expect(reads[0] < 4 * max(matches, 5) + 40, "\(format): \(reads[0]) keys read for \(matches) matches")
    }

    /// A union's pages of one record each, over a zone of 4000: every page reads a few keys,
    /// and the records come once each, in the scan's order.
    @Test func unionPagesReadTheirPage() async throws {
        let (backend, database, zone) = try await Self.store(4000)
        let names = ["tag00005", "tag00123", "tag02000", "tag03999"]
        let query = CKQuery(recordType: "T", predicate: NSPredicate(format: "tags IN %@", names))
        _ = try await OpsTestKit.walk(query, zoneID: zone, limit: 100, in: database)  // builds the index
        backend.reset()
        let records = try await OpsTestKit.walk(query, zoneID: zone, limit: 1, in: database)
        print("QueryUnionPlanCostTests: 4 pages of 1 over 4000 records: \(backend.keysRead) keys read")
        #expect(records.map(\.recordID.recordName) == ["r123", "r2000", "r3999", "r5"])
        #expect(backend.keysRead < 80, "\(backend.keysRead) keys read for 4 pages of one record")
    }

    /// `ANY {a, b} = list` (which Web Services filters cannot express) is the union of
    /// `list IN {a, b}`, with the same answer in the same order.
    @Test func anyAggregateEqualsIsTheUnion() async throws {
        let (backend, database, zone) = try await Self.store(500)
        let query = CKQuery(recordType: "T", predicate: NSPredicate(format: "ANY {'tag00007', 'M1'} = tags"))
        let union = CKQuery(recordType: "T", predicate: NSPredicate(format: "tags IN {'tag00007', 'M1'}"))
        let expected = try await OpsTestKit.walk(union, zoneID: zone, limit: 50, in: database)
        backend.reset()
        let found = try await OpsTestKit.walk(query, zoneID: zone, limit: 50, in: database)
        #expect(found.map(\.recordID.recordName) == expected.map(\.recordID.recordName))
        #expect(found.count == 167, "the 167 records with m1, r7 (also tag00007) once")
        #expect(backend.keysRead < 3 * 167 + 40, "\(backend.keysRead) keys read")
    }
}
