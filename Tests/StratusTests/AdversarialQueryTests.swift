import Foundation
import Stratus
import Testing

/// Sorted and unsorted query paging over values that stress the index encoding: integers and
/// doubles of equal value, signed zeros, infinities, NaN, strings that extend one another.
/// Following cursors with any page size must return exactly what one unlimited page returns.
@Suite struct AdversarialQueryTests {
    /// Every record name the query returns, following cursors with pages of `limit` (stops
    /// after `cap` names, so a cursor that never ends cannot hang the test).
    static func walk(
        _ database: CKDatabase, _ query: CKQuery, _ zoneID: CKRecordZone.ID?, limit: Int, cap: Int = 500
    ) async throws -> [String] {
        var names: [String] = []
        var page = try await database.records(matching: query, inZoneWith: zoneID, resultsLimit: limit)
        while true {
            names += page.matchResults.map(\.0.recordName)
            guard let cursor = page.queryCursor, names.count < cap else { break }
            page = try await database.records(continuingMatchFrom: cursor, resultsLimit: limit)
        }
        return names
    }

    static func save(
        _ values: [(String, any CKRecordValue)], type: String, in database: CKDatabase, zone zoneID: CKRecordZone.ID
    ) async throws {
        try await OpsTestKit.save(
            values.map { name, value in
                let record = CKRecord(recordType: type, recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
                record["v"] = value
                return record
            }, in: database)
    }

    static func expectStablePaging(
        _ database: CKDatabase, type: String, zone zoneID: CKRecordZone.ID, count: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for ascending in [true, false] {
            let query = CKQuery(recordType: type, predicate: NSPredicate(value: true))
            query.sortDescriptors = [NSSortDescriptor(key: "v", ascending: ascending)]
            let all = try await walk(database, query, zoneID, limit: 400)
            #expect(all.count == count && Set(all).count == count, "\(all)", sourceLocation: sourceLocation)
            for limit in [1, 2, 3, 5] {
                let paged = try await walk(database, query, zoneID, limit: limit)
                #expect(
                    paged == all, "ascending \(ascending), pages of \(limit): \(paged.prefix(40))",
                    sourceLocation: sourceLocation)
            }
        }
    }

    /// An integer and a double of equal value are different index groups whose keys share a
    /// prefix; walking them in descending order with small pages returned them again and again.
    @Test func sortedPagingOverEqualIntegersAndDoubles() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        let values: [(String, any CKRecordValue)] = [
            ("int2", 2), ("double2", 2.0), ("int0", 0), ("double0", 0.0), ("negzero", -0.0), ("one", 1),
            ("onehalf", 1.5), ("minus1", -1), ("minushalf", -0.5), ("int64max", Int64.max), ("huge", 9.3e18),
            ("int64min", Int64.min), ("inf", Double.infinity), ("neginf", -Double.infinity), ("nan1", Double.nan),
            ("nan2", Double.nan), ("int2b", 2), ("double2b", 2.0),
        ]
        try await Self.save(values, type: "Num", in: database, zone: zoneID)
        try await Self.expectStablePaging(database, type: "Num", zone: zoneID, count: values.count)
    }

    /// A string whose bytes extend another's ("ab", "ab\0", "ab\0c") and strings that share their
    /// first 200 bytes (the indexed prefix).
    @Test func sortedPagingOverStringsThatExtendOneAnother() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        let long = String(repeating: "p", count: 250)
        let strings = [
            "ab", "ab\u{0}", "ab\u{0}c", "ab\u{0}\u{0}", "a", "abc", "", long, long + "a", long + "A", long + "b",
            long + "\u{0}", "é", "e\u{301}", "B", "b",
        ]
        try await Self.save(
            strings.enumerated().map { ("s\($0.offset)", $0.element) }, type: "Str", in: database, zone: zoneID)
        try await Self.expectStablePaging(database, type: "Str", zone: zoneID, count: strings.count)
    }

    /// Dates, and records without the sort field (null) mixed with ones that have it.
    @Test func sortedPagingOverDatesAndMissingValues() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Z", in: database)
        var values: [(String, any CKRecordValue)] = [
            ("past", Date.distantPast), ("future", Date.distantFuture), ("epoch", Date(timeIntervalSince1970: 0)),
            ("ref", Date(timeIntervalSinceReferenceDate: 0)),
        ]
        values += (0..<4).map { ("same\($0)", Date(timeIntervalSinceReferenceDate: 1000) as any CKRecordValue) }
        try await Self.save(values, type: "When", in: database, zone: zoneID)
        try await OpsTestKit.save(
            (0..<3).map {
                CKRecord(recordType: "When", recordID: CKRecord.ID(recordName: "none\($0)", zoneID: zoneID))
            },
            in: database)
        try await Self.expectStablePaging(database, type: "When", zone: zoneID, count: values.count + 3)
    }

    /// A zone-less query over several zones, unsorted and sorted, paged by one.
    @Test func zonelessPagingOverSeveralZones() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        var expected = 0
        for zone in ["A", "B", "C"] {
            let zoneID = try await OpsTestKit.makeZone(zone, in: database)
            try await Self.save(
                (0..<4).map { ("\(zone)\($0)", $0 % 2 == 0 ? 1 : 1.0) }, type: "Z", in: database, zone: zoneID)
            expected += 4
        }
        try await Self.save([("d", 1)], type: "Z", in: database, zone: .default)
        expected += 1
        let unsorted = CKQuery(recordType: "Z", predicate: NSPredicate(value: true))
        let all = try await Self.walk(database, unsorted, nil, limit: 400)
        #expect(all.count == expected && Set(all).count == expected)
        #expect(try await Self.walk(database, unsorted, nil, limit: 1) == all)
        for ascending in [true, false] {
            let sorted = CKQuery(recordType: "Z", predicate: NSPredicate(value: true))
            sorted.sortDescriptors = [NSSortDescriptor(key: "v", ascending: ascending)]
            let whole = try await Self.walk(database, sorted, nil, limit: 400)
            #expect(Set(whole).count == expected && whole.count == expected)
            #expect(try await Self.walk(database, sorted, nil, limit: 1) == whole)
        }
    }

    /// A predicate of more values than CloudKit allows (250: a value of a list, a word of a
    /// token search, any other comparison) is refused with `limitExceeded` in a query and in
    /// a subscription; one at the limit runs.
    @Test func predicatesOfMoreThan250ValuesAreRefused() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Limits", in: database)
        try await Self.save([("a", "w0"), ("b", "other")], type: "L", in: database, zone: zoneID)
        let words = (0..<251).map { "w\($0)" }
        let tooMany = [
            NSPredicate(format: "v IN %@", words),
            NSPredicate(format: "self CONTAINS %@", words.joined(separator: " ")),
            NSPredicate(format: words.map { _ in "v != %@" }.joined(separator: " AND "), argumentArray: words),
        ]
        for predicate in tooMany {
            let query = CKQuery(recordType: "L", predicate: predicate)
            do {
                _ = try await database.records(matching: query, inZoneWith: zoneID)
                Issue.record("a predicate of 251 values ran")
            } catch let error as CKError {
                #expect(error.code == .limitExceeded, "\(error)")
                #expect(error.localizedDescription.contains("limit of values: 250"), "\(error)")
            }
            let subscription = CKQuerySubscription(recordType: "L", predicate: predicate, subscriptionID: "too-many")
            do {
                _ = try await database.save(subscription)
                Issue.record("a subscription of 251 values was saved")
            } catch let error as CKError {
                #expect(error.code == .limitExceeded, "\(error)")
            }
        }
        let atLimit = CKQuery(recordType: "L", predicate: NSPredicate(format: "v IN %@", Array(words.prefix(250))))
        let page = try await database.records(matching: atLimit, inZoneWith: zoneID)
        #expect(page.matchResults.map(\.0.recordName) == ["a"])
    }
}
