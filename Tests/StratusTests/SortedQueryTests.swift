import Foundation
import Stratus
import Testing

/// Sorted queries page over value indexes with keyset cursors: every match exactly once, in
/// the order of every sort descriptor, across zones, even when records change between pages.
@Suite struct SortedQueryTests {
    private func seed(_ database: CKDatabase) async throws -> [CKRecordZone.ID] {
        let a = try await OpsTestKit.makeZone("A", in: database)
        let b = try await OpsTestKit.makeZone("B", in: database)
        var records: [CKRecord] = []
        for n in 0..<120 {
            let record = CKRecord(
                recordType: "Item",
                recordID: CKRecord.ID(recordName: String(format: "r%03d", n), zoneID: n % 2 == 0 ? a : b))
            if n % 10 != 0 { record["rank"] = n % 7 }  // duplicates, and some records without a rank
            record["name"] = "item \(119 - n)"
            records.append(record)
        }
        _ = try await OpsTestKit.save(Array(records.prefix(60)), in: database)
        _ = try await OpsTestKit.save(Array(records.dropFirst(60)), in: database)
        return [a, b]
    }

    @Test(arguments: [true, false])
    func everyMatchOnceInOrderAcrossZones(ascending: Bool) async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        _ = try await seed(database)
        let query = CKQuery(recordType: "Item", predicate: NSPredicate(value: true))
        query.sortDescriptors = [
            NSSortDescriptor(key: "rank", ascending: ascending), NSSortDescriptor(key: "name", ascending: true),
        ]
        let records = try await OpsTestKit.walk(query, zoneID: nil, limit: 7, in: database)
        #expect(records.count == 120)
        #expect(Set(records.map(\.recordID)).count == 120)
        // Expected: by rank (absent first when ascending, last when descending), then by name.
        let expected = records.sorted { a, b in
            let ra = a["rank"] as? Int
            let rb = b["rank"] as? Int
            if ra != rb {
                switch (ra, rb) {
                case (nil, _): return ascending
                case (_, nil): return !ascending
                case (let x?, let y?): return ascending ? x < y : x > y
                }
            }
            return (a["name"] as? String ?? "") < (b["name"] as? String ?? "")
        }
        #expect(records.map(\.recordID.recordName) == expected.map(\.recordID.recordName))
    }

    @Test func filteredSortedQueryInOneZone() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zones = try await seed(database)
        let query = CKQuery(recordType: "Item", predicate: NSPredicate(format: "rank >= %d", 3))
        query.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: false)]
        let records = try await OpsTestKit.walk(query, zoneID: zones[0], limit: 4, in: database)
        let ranks = records.compactMap { $0["rank"] as? Int }
        #expect(ranks.count == records.count)
        #expect(ranks == ranks.sorted(by: >))
        #expect(records.allSatisfy { $0.recordID.zoneID == zones[0] && ($0["rank"] as? Int ?? 0) >= 3 })
        let expectedCount = (0..<120).filter { $0 % 2 == 0 && $0 % 10 != 0 && $0 % 7 >= 3 }.count
        #expect(records.count == expectedCount)
    }

    @Test func sortByCreationDateAndRecordsSavedAfterTheIndexWasBuilt() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zone = try await OpsTestKit.makeZone("Z", in: database)
        for n in 0..<5 {
            let record = CKRecord(recordType: "Event", recordID: CKRecord.ID(recordName: "e\(n)", zoneID: zone))
            record["n"] = n
            _ = try await OpsTestKit.save([record], in: database)
        }
        let query = CKQuery(recordType: "Event", predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)]
        var names = try await OpsTestKit.walk(query, zoneID: zone, limit: 2, in: database).map(\.recordID.recordName)
        #expect(names == ["e4", "e3", "e2", "e1", "e0"])
        // The index now exists; a new record must be maintained in it.
        let late = CKRecord(recordType: "Event", recordID: CKRecord.ID(recordName: "e5", zoneID: zone))
        _ = try await OpsTestKit.save([late], in: database)
        names = try await OpsTestKit.walk(query, zoneID: zone, limit: 2, in: database).map(\.recordID.recordName)
        #expect(names == ["e5", "e4", "e3", "e2", "e1", "e0"])
    }

    /// Index entries point at the record's change-log position (decision 0008): a change that
    /// keeps the sorted value moves the record, and the next sorted query must see its latest
    /// state; a deleted record leaves the index.
    @Test func recordsChangedOrDeletedAfterTheIndexWasBuiltAreSeenInTheirLatestState() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zone = try await OpsTestKit.makeZone("Z", in: database)
        var records: [CKRecord] = []
        for n in 0..<6 {
            let record = CKRecord(recordType: "Task", recordID: CKRecord.ID(recordName: "t\(n)", zoneID: zone))
            record["rank"] = n
            record["note"] = "v1"
            records.append(record)
        }
        let saved = try await OpsTestKit.save(records, in: database)
        let query = CKQuery(recordType: "Task", predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
        #expect(try await OpsTestKit.walk(query, zoneID: zone, limit: 4, in: database).count == 6)
        // Same rank, new note: the record moves in the change log, not in the index's order.
        saved[2]["note"] = "v2"
        // New rank: the record moves in the index too.
        saved[4]["rank"] = -1
        _ = try await OpsTestKit.save([saved[2], saved[4]], in: database)
        _ = try await database.modifyRecords(saving: [], deleting: [saved[0].recordID])
        let walked = try await OpsTestKit.walk(query, zoneID: zone, limit: 4, in: database)
        #expect(walked.map(\.recordID.recordName) == ["t4", "t1", "t2", "t3", "t5"])
        #expect(walked.map { $0["note"] as? String } == ["v1", "v1", "v2", "v1", "v1"])
    }

    @Test func sortingByAnUnsortableFieldIsRejected() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zone = try await OpsTestKit.makeZone("Z", in: database)
        let record = CKRecord(recordType: "Blob", recordID: CKRecord.ID(recordName: "b", zoneID: zone))
        record["data"] = Data([1, 2, 3])
        _ = try await OpsTestKit.save([record], in: database)
        let query = CKQuery(recordType: "Blob", predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: "data", ascending: true)]
        await #expect(throws: CKError.self) {
            _ = try await database.records(matching: query, inZoneWith: zone)
        }
        do {
            _ = try await database.records(matching: query, inZoneWith: zone)
        } catch let error as CKError {
            #expect(error.code == .invalidArguments)
            #expect(error.localizedDescription.contains("data"))
        }
    }
}

/// A sort index group of most of the zone (a sort field most records lack): its records are
/// read in slices and only what the page can take is kept; pages continue inside the group.
@Suite struct LargeSortGroupTests {
    @Test func aGroupOfMostRecordsPagesInOrderEachOnce() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zones = [
            try await OpsTestKit.makeZone("A", in: database), try await OpsTestKit.makeZone("B", in: database),
        ]
        var records: [CKRecord] = []
        for n in 0..<1_300 {
            let record = CKRecord(
                recordType: "Task", recordID: CKRecord.ID(recordName: String(format: "t%04d", n), zoneID: zones[n % 2]))
            if n % 100 == 0 { record["priority"] = n / 100 % 3 }
            record["title"] = "title \(n % 37)"
            records.append(record)
        }
        for start in stride(from: 0, to: records.count, by: 400) {
            _ = try await OpsTestKit.save(Array(records[start..<min(start + 400, records.count)]), in: database)
        }
        // The field's index is built by the first sorted query.
        let query = CKQuery(recordType: "Task", predicate: NSPredicate(format: "title != %@", "title 3"))
        query.sortDescriptors = [
            NSSortDescriptor(key: "priority", ascending: true), NSSortDescriptor(key: "title", ascending: false),
        ]
        let walked = try await OpsTestKit.walk(query, zoneID: nil, limit: 9, in: database)
        let expected = records.filter { $0["title"] as? String != "title 3" }.sorted { a, b in
            let pa = a["priority"] as? Int ?? -1
            let pb = b["priority"] as? Int ?? -1
            if pa != pb { return pa < pb }
            let ta = a["title"] as! String
            let tb = b["title"] as! String
            if ta != tb { return ta > tb }
            return (zones.firstIndex(of: a.recordID.zoneID)!, a.recordID.recordName)
                < (zones.firstIndex(of: b.recordID.zoneID)!, b.recordID.recordName)
        }
        #expect(walked.map(\.recordID.recordName) == expected.map(\.recordID.recordName))
    }
}

/// `CKLocationSortDescriptor`: nearest first, paged.
@Suite struct LocationSortTests {
    @Test func recordsSortByDistanceNearestFirst() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zone = try await OpsTestKit.makeZone("Z", in: database)
        let cities: [(String, Double, Double)] = [
            ("london", 51.5074, -0.1278), ("paris", 48.8566, 2.3522), ("berlin", 52.52, 13.405),
            ("madrid", 40.4168, -3.7038), ("rome", 41.9028, 12.4964),
        ]
        var records: [CKRecord] = []
        for (name, lat, lon) in cities {
            let record = CKRecord(recordType: "City", recordID: CKRecord.ID(recordName: name, zoneID: zone))
            record["location"] = CLLocation(latitude: lat, longitude: lon)
            records.append(record)
        }
        _ = try await OpsTestKit.save(records, in: database)
        let query = CKQuery(recordType: "City", predicate: NSPredicate(value: true))
        let brussels = CLLocation(latitude: 50.8503, longitude: 4.3517)
        query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: brussels)]
        var names: [String] = []
        var page = try await database.records(matching: query, inZoneWith: zone, resultsLimit: 2)
        names += page.matchResults.map(\.0.recordName)
        while let cursor = page.queryCursor {
            page = try await database.records(continuingMatchFrom: cursor, resultsLimit: 2)
            names += page.matchResults.map(\.0.recordName)
        }
        #expect(names == ["paris", "london", "berlin", "rome", "madrid"])
    }

    /// A sort in memory keeps a page's worth of matches, and its cursor is the last match
    /// delivered: across pages and zones every match comes once in order (absent locations
    /// first, ties by zone and name), and a record saved before the cursor's place while a
    /// client pages moves nothing (an offset would deliver the page's last match again).
    @Test func pagesContinueAfterTheLastMatchWhileRecordsAreSaved() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zones = [
            try await OpsTestKit.makeZone("A", in: database), try await OpsTestKit.makeZone("B", in: database),
        ]
        var records: [CKRecord] = []
        for n in 0..<200 {
            let record = CKRecord(
                recordType: "Place", recordID: CKRecord.ID(recordName: String(format: "p%03d", n), zoneID: zones[n % 2])
            )
            if n % 9 != 0 { record["location"] = CLLocation(latitude: 51 + Double(n % 13) / 10, longitude: 4.3517) }
            records.append(record)
        }
        _ = try await OpsTestKit.save(records, in: database)
        let expected = records.sorted { a, b in
            func rank(_ r: CKRecord) -> (Int, Int, Int, String) {
                let n = Int(r.recordID.recordName.dropFirst())!
                return (n % 9 == 0 ? 0 : 1, n % 9 == 0 ? 0 : n % 13, n % 2, r.recordID.recordName)
            }
            return rank(a) < rank(b)
        }.map(\.recordID.recordName)

        let query = CKQuery(recordType: "Place", predicate: NSPredicate(value: true))
        let brussels = CLLocation(latitude: 50.8503, longitude: 4.3517)
        query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: brussels)]
        var names: [String] = []
        var page = try await database.records(matching: query, inZoneWith: nil, resultsLimit: 7)
        names += page.matchResults.map(\.0.recordName)
        while let cursor = page.queryCursor {
            if names.count == 21 {
                let early = CKRecord(recordType: "Place", recordID: CKRecord.ID(recordName: "early", zoneID: zones[0]))
                _ = try await OpsTestKit.save([early], in: database)  // no location: sorts first
            }
            page = try await database.records(continuingMatchFrom: cursor, resultsLimit: 7)
            names += page.matchResults.map(\.0.recordName)
        }
        #expect(names == expected)
    }
}
