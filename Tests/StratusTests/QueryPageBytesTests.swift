import Foundation
import Testing

@testable import Stratus

/// A query page ends after the record that takes its fields to
/// `DatabaseContext.maximumQueryPageBytes` (16 MiB), whatever its limit, with a cursor after
/// that record, on every kind of plan; the pages together hold every match once, in order, and
/// the fields left out by `desiredKeys` do not count.
@Suite struct QueryPageBytesTests {
    /// 40 records `T` of 900,000 bytes each (36 MB) in one zone: `k` its number, `flag` 1,
    /// `tags` ["x"], a location, and `blob`.
    private static func store() async throws -> (CKDatabase, CKRecordZone.ID, [String]) {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zone = try await OpsTestKit.makeZone("Z", in: database)
        let blob = Data(repeating: 7, count: 900_000)
        var names: [String] = []
        for start in stride(from: 0, to: 40, by: 10) {
            let records = (start..<start + 10).map { n in
                let record = CKRecord(
                    recordType: "T", recordID: CKRecord.ID(recordName: String(format: "r%02d", n), zoneID: zone))
                record["k"] = n
                record["flag"] = 1
                record["tags"] = ["x"]
                record["place"] = CLLocation(latitude: 50 + Double(n) / 100, longitude: 4)
                record["blob"] = blob
                return record
            }
            _ = try await OpsTestKit.save(records, in: database)
            names += records.map(\.recordID.recordName)
        }
        return (database, zone, names)
    }

    /// The size of each page of `query`, limit 400, and the names of every page in order.
    private static func pages(
        _ query: CKQuery, zone: CKRecordZone.ID, desiredKeys: [CKRecord.FieldKey]? = nil, in database: CKDatabase
    ) async throws -> (sizes: [Int], names: [String]) {
        var sizes: [Int] = []
        var names: [String] = []
        var page = try await database.records(
            matching: query, inZoneWith: zone, desiredKeys: desiredKeys, resultsLimit: 400)
        while true {
            sizes.append(page.matchResults.count)
            names += page.matchResults.map(\.0.recordName)
            guard let cursor = page.queryCursor, sizes.count < 20 else { break }
            page = try await database.records(
                continuingMatchFrom: cursor, desiredKeys: desiredKeys, resultsLimit: 400)
        }
        return (sizes, names)
    }

    /// Every plan: a scan, a sort read in pieces, a sort by two keys (groups read whole), a
    /// union of index groups, an unsorted range, a distance sort in memory.
    static let queries: [(String, [String], Bool)] = [
        ("TRUEPREDICATE", [], true),
        ("TRUEPREDICATE", ["flag"], true),
        ("TRUEPREDICATE", ["flag", "k"], true),
        ("ANY tags IN {'x', 'y'}", [], true),
        ("k >= 0", [], true),
        ("TRUEPREDICATE", ["place"], false),
    ]

    @Test(arguments: queries.indices)
    func aPageEndsWhenItsBytesAreSpent(_ index: Int) async throws {
        let (format, sorts, ascending) = Self.queries[index]
        let (database, zone, names) = try await Self.store()
        let query = CKQuery(recordType: "T", predicate: NSPredicate(format: format))
        query.sortDescriptors = sorts.map { key in
            key == "place"
                ? CKLocationSortDescriptor(key: key, relativeLocation: CLLocation(latitude: 49, longitude: 4))
                : NSSortDescriptor(key: key, ascending: ascending)
        }
        let (sizes, seen) = try await Self.pages(query, zone: zone, in: database)
        // 16 MiB ÷ 900,000 bytes: the 19th record spends the page.
        #expect(sizes == [19, 19, 2], "\(format) sorted by \(sorts)")
        #expect(seen == names, "\(format) sorted by \(sorts)")

        // Without the blobs in the answer, the fields the page carries are small.
        let small = try await Self.pages(query, zone: zone, desiredKeys: ["k"], in: database)
        #expect(small.sizes == [40], "\(format) sorted by \(sorts), desiredKeys [k]")
    }

    /// A zone-less query over two zones, sorted by `g` descending then `k` (groups of 10 read
    /// whole, sorted in memory): the budget runs across groups and zones.
    @Test func aPageEndsWhenItsBytesAreSpentAcrossGroupsAndZones() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let blob = Data(repeating: 3, count: 900_000)
        var expected: [(g: Int, k: Int, zone: Int, name: String)] = []
        for (number, zoneName) in ["A", "B"].enumerated() {
            let zone = try await OpsTestKit.makeZone(zoneName, in: database)
            for start in stride(from: 0, to: 20, by: 10) {
                let records = (start..<start + 10).map { n in
                    let name = zoneName + String(format: "%02d", n)
                    let record = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: name, zoneID: zone))
                    record["g"] = n / 5
                    record["k"] = n % 5
                    record["blob"] = blob
                    expected.append((n / 5, n % 5, number, name))
                    return record
                }
                _ = try await OpsTestKit.save(records, in: database)
            }
        }
        let query = CKQuery(recordType: "T", predicate: NSPredicate(value: true))
        query.sortDescriptors = [
            NSSortDescriptor(key: "g", ascending: false), NSSortDescriptor(key: "k", ascending: true),
        ]
        var sizes: [Int] = []
        var names: [String] = []
        var page = try await database.records(matching: query, inZoneWith: nil, resultsLimit: 400)
        while true {
            sizes.append(page.matchResults.count)
            names += page.matchResults.map(\.0.recordName)
            guard let cursor = page.queryCursor, sizes.count < 20 else { break }
            page = try await database.records(continuingMatchFrom: cursor, resultsLimit: 400)
        }
        let order = expected.sorted { a, b in
            if a.g != b.g { return a.g > b.g }
            return (a.k, a.zone, a.name) < (b.k, b.zone, b.name)
        }
        #expect(sizes == [19, 19, 2])
        #expect(names == order.map(\.name))
    }

    /// The slices of entries grow while small and shrink while large.
    @Test func slicesFollowTheSizeOfWhatTheyRead() {
        #expect(EntrySlices.nextSize(after: 100_000, size: 128, largest: 512) == 256)
        #expect(EntrySlices.nextSize(after: 100_000, size: 400, largest: 512) == 512)
        #expect(EntrySlices.nextSize(after: 100_000, size: 10, largest: 12) == 12)
        #expect(EntrySlices.nextSize(after: 5 << 20, size: 128, largest: 512) == 64)
        #expect(EntrySlices.nextSize(after: 5 << 20, size: 1, largest: 512) == 1)
    }
}
