import Foundation
import Stratus

extension QueryCases {
    /// The cases of sorts whose matches are selected a page at a time: an index group of most
    /// of the zone, and a sort in memory whose cursor is its last match.
    static var largeGroupCases: [ConformanceCase] {
        [largeSortGroup, largeSortGroupReadInPieces, memorySortContinuesAfterLastMatch]
    }

    static let largeSortGroup = ConformanceCase(
        "cursors.largeSortGroup", invariants: [21, 22, 23],
        "A sort by a field most records lack (one index group of nearly the whole zone), filtered and with a second sort key, pages through every match once in order across two zones: absent values first, then by the second key, ties by zone and name."
    ) { context in
        let (db, zones, records) = try saveTasks(in: context)

        context.step("query title != 'title 3' sorted by priority, then title descending, pages of 9")
        let query = CKQuery(recordType: "Task", predicate: NSPredicate(format: "title != %@", "title 3"))
        query.sortDescriptors = [
            NSSortDescriptor(key: "priority", ascending: true), NSSortDescriptor(key: "title", ascending: false),
        ]
        let pages = try Reads.allPages(db, query, zoneID: nil, limit: 9, maxPages: 200, in: context)
        let expected = records.filter { $0["title"] as? String != "title 3" }.sorted {
            groupPrecedes($0, $1, zones)
        }
        try context.expectEqual(
            pages.flatMap { $0 }.map(\.recordID.recordName), expected.map(\.recordID.recordName),
            "the records of every page, in order")
    }

    static let largeSortGroupReadInPieces = ConformanceCase(
        "cursors.largeSortGroupReadInPieces", invariants: [21, 22, 23],
        "A sort by one field most records lack (one index group of nearly the whole zone, read a page at a time), ascending and descending, filtered or not, pages through every match once in order across two zones: ties by zone and name in both directions."
    ) { context in
        let (db, zones, records) = try saveTasks(in: context)
        for (ascending, format) in [(true, "title != %@"), (false, "title != %@"), (false, "TRUEPREDICATE")] {
            context.step("query \(format) sorted by priority \(ascending ? "ascending" : "descending"), pages of 9")
            let predicate =
                format == "TRUEPREDICATE" ? NSPredicate(value: true) : NSPredicate(format: format, "title 3")
            let query = CKQuery(recordType: "Task", predicate: predicate)
            query.sortDescriptors = [NSSortDescriptor(key: "priority", ascending: ascending)]
            let pages = try Reads.allPages(db, query, zoneID: nil, limit: 9, maxPages: 200, in: context)
            let expected = records.filter { format == "TRUEPREDICATE" || $0["title"] as? String != "title 3" }
                .sorted { pieceOrderPrecedes($0, $1, ascending: ascending, zones) }
            try context.expectEqual(
                pages.flatMap { $0 }.map(\.recordID.recordName), expected.map(\.recordID.recordName),
                "the records of every page, in order (\(format), ascending: \(ascending))")
        }
    }

    /// Whether `a` comes before `b` in ``largeSortGroupReadInPieces``: by priority (absent
    /// first when ascending, last when descending), then zone and name in either direction.
    private static func pieceOrderPrecedes(
        _ a: CKRecord, _ b: CKRecord, ascending: Bool, _ zones: [CKRecordZone.ID]
    ) -> Bool {
        let (pa, pb) = (a["priority"] as? Int ?? -1, b["priority"] as? Int ?? -1)
        if pa != pb { return ascending ? pa < pb : pa > pb }
        let (za, zb) = (zones.firstIndex(of: a.recordID.zoneID) ?? 0, zones.firstIndex(of: b.recordID.zoneID) ?? 0)
        return (za, a.recordID.recordName) < (zb, b.recordID.recordName)
    }

    /// The private database, its zones A and B, and 1,300 records `Task` `t0000`… saved in them
    /// alternately, each with a title; every 100th with a priority.
    private static func saveTasks(
        in context: ConformanceContext
    ) throws -> (CKDatabase, [CKRecordZone.ID], [CKRecord]) {
        let db = try context.container().privateCloudDatabase
        let zones = try Ops.createZones(db, ["A", "B"], in: context)
        context.step("save 1,300 records in two zones; every 100th has a priority")
        let records = (0..<1_300).map { n -> CKRecord in
            var fields: [String: any CKRecordValue] = ["title": "title \(n % 37)"]
            if n % 100 == 0 { fields["priority"] = n / 100 % 3 }
            return makeRecord(String(format: "t%04d", n), type: "Task", zone: zones[n % 2], fields)
        }
        for start in stride(from: 0, to: records.count, by: 400) {
            _ = try Ops.saveAll(db, Array(records[start..<min(start + 400, records.count)]), in: context)
        }
        return (db, zones, records)
    }

    /// Whether `a` comes before `b` in ``largeSortGroup``: no priority first, then priority,
    /// title descending, zone, name.
    private static func groupPrecedes(_ a: CKRecord, _ b: CKRecord, _ zones: [CKRecordZone.ID]) -> Bool {
        let (pa, pb) = (a["priority"] as? Int ?? -1, b["priority"] as? Int ?? -1)
        if pa != pb { return pa < pb }
        let (ta, tb) = (a["title"] as? String ?? "", b["title"] as? String ?? "")
        if ta != tb { return ta > tb }
        let (za, zb) = (zones.firstIndex(of: a.recordID.zoneID) ?? 0, zones.firstIndex(of: b.recordID.zoneID) ?? 0)
        return (za, a.recordID.recordName) < (zb, b.recordID.recordName)
    }

    static let memorySortContinuesAfterLastMatch = ConformanceCase(
        "cursors.memorySortContinuesAfterLastMatch", invariants: [22, 23],
        "A distance sort (sorted in memory) pages through every match once in order across two zones, and a record saved before the cursor's place between two pages neither repeats nor shifts a match."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zones = try Ops.createZones(db, ["A", "B"], in: context)
        context.step("save 200 places in two zones, every 9th without a location")
        let records = (0..<200).map { n -> CKRecord in
            var fields: [String: any CKRecordValue] = [:]
            if n % 9 != 0 { fields["location"] = CLLocation(latitude: 51 + Double(n % 13) / 10, longitude: 4.3517) }
            return makeRecord(String(format: "p%03d", n), type: "Place", zone: zones[n % 2], fields)
        }
        _ = try Ops.saveAll(db, records, in: context)
        let expected = records.map(\.recordID.recordName).sorted { placeOrder($0) < placeOrder($1) }

        context.step("walk the distance sort from Brussels in pages of 7, saving a record without location after 3")
        let query = CKQuery(recordType: "Place", predicate: NSPredicate(value: true))
        query.sortDescriptors = [
            CKLocationSortDescriptor(
                key: "location", relativeLocation: CLLocation(latitude: 50.8503, longitude: 4.3517))
        ]
        var names: [String] = []
        var page = Ops.query(db, query, zoneID: nil, limit: 7)
        for number in 1...100 {
            if let error = page.error {
                throw context.failure(expected: "page \(number) succeeds", actual: Reads.describe(error))
            }
            names += page.records.map(\.recordID.recordName)
            guard let cursor = page.cursor else { break }
            if number == 3 {
                _ = try Ops.saveAll(db, [makeRecord("early", type: "Place", zone: zones[0])], in: context)
            }
            page = Ops.query(db, cursor: cursor, limit: 7)
        }
        try context.expectEqual(names, expected, "the records of every page, in order")
    }

    /// Where place `name` sorts: no location first, then by distance (its row of latitude),
    /// zone (even numbers in A), name.
    private static func placeOrder(_ name: String) -> (Int, Int, Int, String) {
        let n = Int(name.dropFirst()) ?? 0
        return (n % 9 == 0 ? 0 : 1, n % 9 == 0 ? 0 : n % 13, n % 2, name)
    }
}
