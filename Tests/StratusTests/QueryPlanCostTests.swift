import Foundation
import Stratus
import Testing

/// A query answered from an index reads what its page needs, not the zone (decision 0019):
/// the keys a query reads, counted in the store, barely change when the zone grows eightfold.
/// Counting keys instead of timing keeps the test exact on a loaded machine; the timings are
/// the benchmark's.
@Suite struct QueryPlanCostTests {
    /// A store holding `count` records `r<i>` with `k = i` and `title = "t%06d"`.
    private static func store(_ count: Int) async throws -> (ReadCountingBackend, CKDatabase, CKRecordZone.ID) {
        let backend = ReadCountingBackend()
        let database = CKContainer(identifier: "iCloud.plans", backend: backend).privateCloudDatabase
        let zone = try await OpsTestKit.makeZone("Z", in: database)
        for start in stride(from: 0, to: count, by: 400) {
            let records = (start..<min(start + 400, count)).map { i in
                let record = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "r\(i)", zoneID: zone))
                record["k"] = i
                record["title"] = String(format: "t%06d", i)
                record["tags"] = ["tag\(i % 100)", "all"]
                return record
            }
            _ = try await OpsTestKit.save(records, in: database)
        }
        return (backend, database, zone)
    }

    nonisolated(unsafe) static let predicates: [(String, [Any], Int)] = [
        ("k == %@", [123], 1),
        ("k >= %@ AND k < %@", [100, 110], 10),
        ("k IN %@", [[5, 50, 105, 450]], 4),
        ("title BEGINSWITH %@", ["t00012"], 10),
        ("title == %@", ["T000321"], 1),
        ("title IN %@", [["t000007", "T000077"]], 2),
        ("tags CONTAINS %@", ["tag7"], -1),
        ("self CONTAINS %@", ["T000123"], 1),
        ("creationDate > %@ AND k == %@", [Date.distantPast, 42], 1),
    ]

    @Test(arguments: predicates.indices)
    func readsDependOnTheMatchesNotTheZone(_ index: Int) async throws {
        let (format, args, matches) = Self.predicates[index]
        let reads = try await QueryCostProbe.readsOverGrowingZones(
            format, args, suite: "QueryPlanCostTests", expected: { matches >= 0 ? matches : $0 / 100 },
            store: Self.store)
        // tags CONTAINS matches 1 % of the zone: its reads grow with its matches, 8×.
        let bound = matches >= 0 ? reads[0] + 8 : reads[0] * 8 + 8
        #expect(reads[1] <= bound, "\(format): \(reads[0]) keys read over 500 records, \(reads[1]) over 4000")
        #expect(reads[0] < 4 * max(matches, 5) + 40, "\(format): \(reads[0]) keys read for \(matches) matches")
    }

    /// `==[d]` (which Web Services filters cannot express, so only embedded containers run it)
    /// reads the match index, folded without case or diacritics, and the evaluator keeps what
    /// equals: accents and case both ignored, nothing longer.
    @Test func diacriticInsensitiveEqualityThroughTheMatchIndex() async throws {
        let backend = ReadCountingBackend()
        let database = CKContainer(identifier: "iCloud.plans", backend: backend).privateCloudDatabase
        let zone = try await OpsTestKit.makeZone("Z", in: database)
        let titles = ["caf\u{E9}", "cafe\u{301}", "CAFE", "Cafe", "caf\u{E9}s", "coffee"]
        let records = titles.enumerated().map { i, title in
            let record = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "r\(i)", zoneID: zone))
            record["title"] = title
            return record
        }
        _ = try await OpsTestKit.save(records, in: database)
        for (format, expected) in [("title ==[d] %@", ["r0", "r1", "r2", "r3"]), ("title == %@", ["r2", "r3"])] {
            let query = CKQuery(recordType: "T", predicate: NSPredicate(format: format, argumentArray: ["CAFE"]))
            let found = try await OpsTestKit.walk(query, zoneID: zone, limit: 100, in: database)
            #expect(found.map(\.recordID.recordName).sorted() == expected, "\(format)")
        }
    }
}
