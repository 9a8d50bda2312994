import Foundation
import Stratus

/// Queries and query cursors: invariants 21–32 of `cloudkit-semantics.md` §11 B.
///
/// Every ID starts with `queries.` (what a query matches and returns) or `cursors.` (how
/// pages continue). Each case makes its own zones and records in fresh storage.
enum QueryCases {
    static var all: [ConformanceCase] {
        [
            sortOrder, unsortedPagesHaveNoDuplicates, cursorsReachEveryMatchOnce, cursorsAcrossZones,
            pageLimitAndTermination, continuationIgnoresNewQueryAndZone, archivedCursorContinues,
            tamperedCursorRejected, desiredKeys, stringEqualityAndPrefix, listMembership, tokenSearch,
            distanceRadius, unsupportedPredicates, zonelessPrivateQuerySearchesAllZones,
            zonelessSharedQueryRejected, committedWritesAreVisible, unknownRecordType, sortedSeesLatestState,
            cursorsOverInterleavedTypesWithChangesBetweenPages,
        ] + largeGroupCases
    }

    /// A query for every record of `type`, optionally sorted.
    private static func everything(_ type: String = "Item", sortedBy keys: [(String, Bool)] = []) -> CKQuery {
        let query = CKQuery(recordType: type, predicate: NSPredicate(value: true))
        if !keys.isEmpty { query.sortDescriptors = keys.map { NSSortDescriptor(key: $0.0, ascending: $0.1) } }
        return query
    }

    /// A query for records of `type` matching the format predicate.
    private static func matching(_ format: String, _ args: [Any] = [], type: String = "Item") -> CKQuery {
        CKQuery(recordType: type, predicate: NSPredicate(format: format, argumentArray: args))
    }

    /// Runs one single page (limit 0: the server's choice) and fails the case on an error.
    private static func onePage(
        _ db: CKDatabase, _ query: CKQuery, zoneID: CKRecordZone.ID? = nil, desiredKeys: [String]? = nil,
        in context: ConformanceContext
    ) throws -> [CKRecord] {
        let page = Ops.query(db, query, zoneID: zoneID, limit: 0, desiredKeys: desiredKeys)
        if let error = page.error {
            throw context.failure(expected: "the query succeeds", actual: Reads.describe(error))
        }
        try context.expect(
            page.cursor == nil, "a small result set fits in one page (no cursor)", actual: "a cursor was returned")
        return page.records
    }

    /// The names of the records `query` matches in `zone`, sorted.
    private static func matchNames(
        _ db: CKDatabase, _ format: String, _ args: [Any] = [], type: String = "Item", zone: CKRecordZone.ID,
        in context: ConformanceContext
    ) throws -> [String] {
        context.step("query: \(format)")
        return Reads.names(try onePage(db, matching(format, args, type: type), zoneID: zone, in: context))
    }

    /// Fails the case unless `records` are ordered by `rank` (then `label`) as the flags say.
    private static func expectOrdered(
        _ records: [CKRecord], rankAscending: Bool, labelAscending: Bool?, in context: ConformanceContext
    ) throws {
        func key(_ r: CKRecord) -> (Int, String) { ((r["rank"] as Int?) ?? -1, (r["label"] as String?) ?? "") }
        for (a, b) in zip(records, records.dropFirst()) {
            let (ra, la) = key(a)
            let (rb, lb) = key(b)
            let rankOK = rankAscending ? ra <= rb : ra >= rb
            var labelOK = true
            if ra == rb, let labelAscending { labelOK = labelAscending ? la <= lb : la >= lb }
            try context.expect(
                rankOK && labelOK,
                "records ordered by rank \(rankAscending ? "ascending" : "descending")"
                    + (labelAscending.map { ", then label \($0 ? "ascending" : "descending")" } ?? ""),
                actual:
                    "\(a.recordID.recordName) (rank \(ra), label \(la)) comes before \(b.recordID.recordName) (rank \(rb), label \(lb)); order: "
                    + records.map { "\($0.recordID.recordName):\(key($0).0)" }.joined(separator: " "))
        }
    }

    // MARK: Sorting and cursors

    static let sortOrder = ConformanceCase(
        "queries.sortOrder", invariants: [21],
        "Sorted queries return records in sort-descriptor order, with ties in the same order on every run and every page size."
    ) { context in
        let db = try context.container().privateCloudDatabase
        context.step("create zone Q and 12 records with ranks 0–3 (three of each) and distinct labels")
        let zone = try Ops.createZones(db, ["Q"], in: context)[0]
        let labels = ["kiwi", "apple", "mango", "fig", "lime", "date", "pear", "plum", "sloe", "yuzu", "ugli", "nashi"]
        _ = try Ops.saveAll(
            db,
            labels.enumerated().map { i, label in
                makeRecord("r\(i)", zone: zone, ["rank": (i * 7) % 4, "label": label])
            },
            in: context)

        context.step("sort by rank ascending")
        let ascending = try onePage(db, everything(sortedBy: [("rank", true)]), zoneID: zone, in: context)
        try context.expectEqual(
            Reads.names(ascending), Reads.names((0..<12).map { CKRecord.ID(recordName: "r\($0)") }),
            "records returned, each once")
        try expectOrdered(ascending, rankAscending: true, labelAscending: nil, in: context)

        context.step("the same sorted query again: ties in the same order")
        let again = try onePage(db, everything(sortedBy: [("rank", true)]), zoneID: zone, in: context)
        try context.expectEqual(
            again.map(\.recordID.recordName), ascending.map(\.recordID.recordName), "order of the second run")

        context.step("the same sorted query in pages of 5: the same order")
        let paged = try Reads.allPages(db, everything(sortedBy: [("rank", true)]), zoneID: zone, limit: 5, in: context)
        try context.expectEqual(
            paged.flatMap { $0 }.map(\.recordID.recordName), ascending.map(\.recordID.recordName),
            "order across pages of 5")

        context.step("sort by rank descending")
        let descending = try onePage(db, everything(sortedBy: [("rank", false)]), zoneID: zone, in: context)
        try context.expectEqual(descending.count, 12, "records returned")
        try expectOrdered(descending, rankAscending: false, labelAscending: nil, in: context)

        context.step("sort by rank ascending, then label descending")
        let twoKeys = try onePage(
            db, everything(sortedBy: [("rank", true), ("label", false)]), zoneID: zone, in: context)
        try context.expectEqual(twoKeys.count, 12, "records returned")
        try expectOrdered(twoKeys, rankAscending: true, labelAscending: false, in: context)

        context.step("sort by label ascending (all distinct): exactly the lexicographic order")
        let byLabel = try onePage(db, everything(sortedBy: [("label", true)]), zoneID: zone, in: context)
        try context.expectEqual(byLabel.compactMap { $0["label"] as String? }, labels.sorted(), "labels in order")
    }

    static let unsortedPagesHaveNoDuplicates = ConformanceCase(
        "queries.unsortedPagesHaveNoDuplicates", invariants: [21],
        "A query without sort descriptors returns each matching record at most once per page, and only matching records."
    ) { context in
        let db = try context.container().privateCloudDatabase
        context.step("create zone Q and 20 records, n = 0…19")
        let zone = try Ops.createZones(db, ["Q"], in: context)[0]
        _ = try Ops.saveAll(db, (0..<20).map { makeRecord("r\($0)", zone: zone, ["n": $0]) }, in: context)
        for limit in [0, 3, 7] {
            context.step("unsorted query n >= 5 with resultsLimit \(limit)")
            let pages = try Reads.allPages(db, matching("n >= %@", [5]), zoneID: zone, limit: limit, in: context)
            for (index, page) in pages.enumerated() {
                let names = page.map(\.recordID.recordName)
                try context.expectEqual(
                    Set(names).count, names.count, "distinct records on page \(index + 1) (\(names))")
            }
            let all = pages.flatMap { $0 }
            try context.expect(
                all.allSatisfy { (($0["n"] as Int?) ?? -1) >= 5 }, "only records with n >= 5",
                actual: "\(all.map { "\($0.recordID.recordName)=\(($0["n"] as Int?) ?? -1)" })")
            try context.expectEqual(Reads.names(all), (5..<20).map { "r\($0)" }.sorted(), "every match, once")
        }
    }

    static let cursorsReachEveryMatchOnce = ConformanceCase(
        "cursors.reachEveryMatchOnce", invariants: [22, 23],
        "Following cursors to exhaustion returns every match exactly once, sorted or not, including when the count is a multiple of the page size."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Q"], in: context)[0]
        // (record count, page size); the record type encodes the combination.
        let shapes = [(10, 3), (9, 3), (6, 2), (4, 1), (1, 1), (5, 5), (2, 4)]
        context.step("create one record type per shape (count, page size), each record with n and parity")
        for (count, size) in shapes {
            let type = "C\(count)x\(size)"
            _ = try Ops.saveAll(
                db,
                (0..<count).map {
                    makeRecord("\(type)-\($0)", type: type, zone: zone, ["n": count - $0, "parity": $0 % 2])
                },
                in: context)
        }
        for (count, size) in shapes {
            let type = "C\(count)x\(size)"
            let expected = (0..<count).map { "\(type)-\($0)" }.sorted()
            for sorted in [false, true] {
                context.step("\(count) records, pages of \(size), \(sorted ? "sorted by n" : "unsorted")")
                let query = everything(type, sortedBy: sorted ? [("n", true)] : [])
                let pages = try Reads.allPages(db, query, zoneID: zone, limit: size, in: context)
                let all = pages.flatMap { $0 }
                try context.expectEqual(all.map(\.recordID.recordName).sorted(), expected, "every record exactly once")
                try context.expect(
                    pages.count <= count / size + 2, "at most ⌈count / page size⌉ + 1 pages",
                    actual: "\(pages.count) pages: \(pages.map(\.count))")
                if sorted {
                    let ns = all.compactMap { $0["n"] as Int? }
                    try context.expectEqual(ns, ns.sorted(), "values of n across pages")
                }
            }
            context.step(
                "\(count) records, pages of \(size), filtered by parity == 0 (matches interleaved with non-matches)")
            let evens = (0..<count).filter { $0 % 2 == 0 }.map { "\(type)-\($0)" }.sorted()
            for sorted in [false, true] {
                let query = matching("parity == %@", [0], type: type)
                if sorted { query.sortDescriptors = [NSSortDescriptor(key: "n", ascending: false)] }
                let pages = try Reads.allPages(db, query, zoneID: zone, limit: size, in: context)
                try context.expectEqual(
                    pages.flatMap { $0 }.map(\.recordID.recordName).sorted(), evens,
                    "every even record exactly once (\(sorted ? "sorted" : "unsorted"))")
            }
        }
    }

    static let cursorsAcrossZones = ConformanceCase(
        "cursors.acrossZones", invariants: [22, 31],
        "Cursors of a zone-less private query walk every zone, default zone included, returning every match exactly once."
    ) { context in
        let db = try context.container().privateCloudDatabase
        context.step("create zones A and B; 3 records in each and in the default zone")
        let zones = try Ops.createZones(db, ["A", "B"], in: context) + [CKRecordZone.ID.default]
        var expected: [String] = []
        for (index, zone) in zones.enumerated() {
            let records = (0..<3).map { makeRecord("z\(index)-\($0)", zone: zone, ["n": index * 10 + $0]) }
            _ = try Ops.saveAll(db, records, in: context)
            expected += records.map(\.recordID.recordName)
        }
        for size in [1, 2, 3, 4] {
            for sorted in [false, true] {
                context.step("zone-less query, pages of \(size), \(sorted ? "sorted by n" : "unsorted")")
                let pages = try Reads.allPages(
                    db, everything(sortedBy: sorted ? [("n", false)] : []), limit: size, in: context)
                let all = pages.flatMap { $0 }
                try context.expectEqual(
                    all.map(\.recordID.recordName).sorted(), expected.sorted(),
                    "every record of every zone exactly once")
                for record in all {
                    try context.expect(
                        record.recordID.recordName.hasPrefix("z\(zones.firstIndex(of: record.recordID.zoneID) ?? -1)-"),
                        "each record carries the ID of its own zone",
                        actual: "\(record.recordID.recordName) reported in zone \(record.recordID.zoneID.zoneName)")
                }
            }
        }
    }

    static let pageLimitAndTermination = ConformanceCase(
        "cursors.pageLimitAndTermination", invariants: [23],
        "A page never exceeds resultsLimit; a missing cursor means no more results; a cursor that leads to an empty page is legal."
    ) { context in
        let db = try context.container().privateCloudDatabase
        context.step("create zone Q and 6 records")
        let zone = try Ops.createZones(db, ["Q"], in: context)[0]
        _ = try Ops.saveAll(db, (0..<6).map { makeRecord("r\($0)", zone: zone, ["n": $0]) }, in: context)
        let all = (0..<6).map { "r\($0)" }

        for sorted in [false, true] {
            let query = everything(sortedBy: sorted ? [("n", true)] : [])
            let label = sorted ? "sorted" : "unsorted"
            context.step("\(label): resultsLimit 10 > count: one page, no cursor")
            let big = Ops.query(db, query, zoneID: zone, limit: 10)
            try context.expect(big.error == nil, "the query succeeds", actual: Reads.describe(big.error))
            try context.expectEqual(big.records.map(\.recordID.recordName).sorted(), all, "records on the only page")
            try context.expect(big.cursor == nil, "no cursor when every match was returned", actual: "a cursor")

            context.step("\(label): resultsLimit 0 (maximumResults) with 6 records: one page, no cursor")
            let server = Ops.query(db, query, zoneID: zone, limit: CKQueryOperation.maximumResults)
            try context.expectEqual(
                server.records.map(\.recordID.recordName).sorted(), all, "records with the server's page size")
            try context.expect(server.cursor == nil, "no cursor", actual: "a cursor")

            context.step("\(label): resultsLimit 6 == count: all six; a cursor, if any, leads to an empty final page")
            let exact = Ops.query(db, query, zoneID: zone, limit: 6)
            try context.expectEqual(exact.records.map(\.recordID.recordName).sorted(), all, "records on the first page")
            if let cursor = exact.cursor {
                let rest = Ops.query(db, cursor: cursor, limit: 6)
                try context.expect(rest.error == nil, "the continuation succeeds", actual: Reads.describe(rest.error))
                try context.expectEqual(rest.records.count, 0, "records after all six were returned")
                try context.expect(
                    rest.cursor == nil, "no cursor after an exhausted result set", actual: "another cursor")
            }

            context.step("\(label): resultsLimit 4: a full page and a cursor, then at most 2 and no cursor")
            let first = Ops.query(db, query, zoneID: zone, limit: 4)
            try context.expect(first.records.count <= 4, "at most 4 records", actual: "\(first.records.count)")
            guard let cursor = first.cursor else {
                throw context.failure(
                    expected: "a cursor: 2 of the 6 records were not returned",
                    actual: "no cursor after \(first.records.count) records")
            }
            let second = Ops.query(db, cursor: cursor, limit: 4)
            try context.expect(
                second.records.count <= 4, "at most 4 records on page 2", actual: "\(second.records.count)")
            try context.expectEqual(
                (first.records + second.records).map(\.recordID.recordName).sorted(), all, "records over both pages")
            try context.expect(second.cursor == nil, "no cursor after the last record", actual: "a cursor")
        }
    }

    static let continuationIgnoresNewQueryAndZone = ConformanceCase(
        "cursors.continuationIgnoresNewQueryAndZone", invariants: [24],
        "A cursor-based continuation stays in the original query and zone, ignoring a query or zoneID set on the new operation."
    ) { context in
        let db = try context.container().privateCloudDatabase
        context.step("create zones A and B, 5 records in each; type Other in B")
        let zones = try Ops.createZones(db, ["A", "B"], in: context)
        let (a, b) = (zones[0], zones[1])
        _ = try Ops.saveAll(db, (0..<5).map { makeRecord("a\($0)", zone: a, ["n": $0]) }, in: context)
        _ = try Ops.saveAll(db, (0..<5).map { makeRecord("b\($0)", zone: b, ["n": $0]) }, in: context)
        _ = try Ops.saveAll(db, [makeRecord("o0", type: "Other", zone: b)], in: context)

        for sorted in [false, true] {
            let label = sorted ? "sorted" : "unsorted"
            context.step("\(label): first page of zone A, n < 4, limit 2")
            let query = matching("n < %@", [4])
            if sorted { query.sortDescriptors = [NSSortDescriptor(key: "n", ascending: true)] }
            let first = Ops.query(db, query, zoneID: a, limit: 2)
            try context.expect(first.error == nil, "the query succeeds", actual: Reads.describe(first.error))
            guard let cursor = first.cursor else {
                throw context.failure(expected: "a cursor after 2 of the 4 matches", actual: "no cursor")
            }

            context.step(
                "\(label): continue with zoneID = B and a query for type Other with a FALSE predicate set on the operation"
            )
            let other = CKQuery(recordType: "Other", predicate: NSPredicate(value: false))
            let hijacked = Reads.restPages(db, from: cursor, overriding: other, zoneID: b, limit: 2)
            context.step("\(label): continue from the same cursor with nothing overridden")
            let plain = Reads.restPages(db, from: cursor, overriding: nil, zoneID: nil, limit: 2)
            try context.expect(
                hijacked.error == nil, "the continuation succeeds", actual: Reads.describe(hijacked.error))
            try context.expectEqual(
                hijacked.records.map(\.recordID.recordName), plain.records.map(\.recordID.recordName),
                "records of the overridden continuation, compared with the plain one")
            try context.expect(
                hijacked.records.allSatisfy { $0.recordID.zoneID == a && $0.recordType == "Item" },
                "only records of type Item in zone A",
                actual: hijacked.records.map { "\($0.recordID.recordName) in \($0.recordID.zoneID.zoneName)" }
                    .description)
            try context.expectEqual(
                Reads.names(first.records + hijacked.records), ["a0", "a1", "a2", "a3"], "records over every page")
        }
    }

    static let archivedCursorContinues = ConformanceCase(
        "cursors.archivedCursorContinues", invariants: [22],
        "A cursor archived with NSKeyedArchiver and unarchived continues the query exactly as the original cursor."
    ) { context in
        let db = try context.container().privateCloudDatabase
        context.step("create zone Q and 5 records")
        let zone = try Ops.createZones(db, ["Q"], in: context)[0]
        _ = try Ops.saveAll(db, (0..<5).map { makeRecord("r\($0)", zone: zone, ["n": $0]) }, in: context)
        for sorted in [false, true] {
            let label = sorted ? "sorted" : "unsorted"
            context.step("\(label): first page of 2")
            let first = Ops.query(db, everything(sortedBy: sorted ? [("n", true)] : []), zoneID: zone, limit: 2)
            guard let cursor = first.cursor else { throw context.failure(expected: "a cursor", actual: "none") }
            context.step("\(label): archive and unarchive the cursor")
            let restored = try context.must("the cursor archives and unarchives (NSSecureCoding)") {
                try CursorArchive.roundTrip(cursor)
            }
            context.step("\(label): continue from the original and from the restored cursor")
            let original = Reads.restPages(db, from: cursor, overriding: nil, zoneID: nil, limit: 2)
            let copy = Reads.restPages(db, from: restored, overriding: nil, zoneID: nil, limit: 2)
            try context.expect(copy.error == nil, "the restored cursor continues", actual: Reads.describe(copy.error))
            try context.expectEqual(
                copy.records.map(\.recordID.recordName), original.records.map(\.recordID.recordName),
                "records after the restored cursor, compared with the original")
            try context.expectEqual(
                Reads.names(first.records + copy.records), (0..<5).map { "r\($0)" }, "records over every page")
        }
    }

    static let tamperedCursorRejected = ConformanceCase(
        "cursors.tamperedCursorRejected",
        "A cursor whose position bytes were altered, or used on another database, fails with invalidArguments and returns no records (engine decision: cursors are authenticated)."
    ) { context in
        let container = try context.container()
        let db = container.privateCloudDatabase
        context.step("create zone Q and 6 records")
        let zone = try Ops.createZones(db, ["Q"], in: context)[0]
        _ = try Ops.saveAll(db, (0..<6).map { makeRecord("r\($0)", zone: zone, ["n": $0]) }, in: context)
        for sorted in [false, true] {
            let label = sorted ? "sorted" : "unsorted"
            context.step("\(label): first page of 2")
            let first = Ops.query(db, everything(sortedBy: sorted ? [("n", true)] : []), zoneID: zone, limit: 2)
            guard let cursor = first.cursor else { throw context.failure(expected: "a cursor", actual: "none") }
            let length = try context.must("the cursor's archived position can be read") {
                try CursorArchive.positionLength(cursor)
            }
            try context.expect(length > 0, "the cursor carries position bytes", actual: "an empty position")
            for offset in Set([0, 1, length / 3, length / 2, length - 17, length - 1]).sorted()
            where offset >= 0 && offset < length {
                context.step("\(label): flip byte \(offset) of \(length) of the cursor's position, then continue")
                let tampered = try context.must("a cursor with one byte flipped can be unarchived") {
                    try CursorArchive.flippingByte(at: offset, of: cursor)
                }
                let page = Ops.query(db, cursor: tampered, limit: 2)
                try context.expectEqual(
                    ckCode(page.error), .invalidArguments,
                    "error of a continuation with a tampered cursor (\(Reads.describe(page.error)))")
                try context.expectEqual(page.records.count, 0, "records delivered from a tampered cursor")
            }
            context.step("\(label): the untampered cursor on the public database of the same container")
            let foreign = Ops.query(container.publicCloudDatabase, cursor: cursor, limit: 2)
            try context.expectEqual(
                ckCode(foreign.error), .invalidArguments,
                "error of a cursor used on another database (\(Reads.describe(foreign.error)))")
            try context.expectEqual(foreign.records.count, 0, "records delivered from a foreign cursor")
            context.step("\(label): the untampered cursor still works on its own database")
            let rest = Reads.restPages(db, from: cursor, overriding: nil, zoneID: nil, limit: 2)
            try context.expect(rest.error == nil, "the original cursor continues", actual: Reads.describe(rest.error))
            try context.expectEqual(
                Reads.names(first.records + rest.records), (0..<6).map { "r\($0)" }, "records over every page")
        }
    }

    // MARK: What a query returns

    static let desiredKeys = ConformanceCase(
        "queries.desiredKeys", invariants: [25],
        "desiredKeys [] returns system fields only, nil every field, a list exactly the listed fields that exist."
    ) { context in
        let db = try context.container().privateCloudDatabase
        context.step("create zone Q and a record with fields a, b, c")
        let zone = try Ops.createZones(db, ["Q"], in: context)[0]
        let saved = try Ops.saveAll(db, [makeRecord("r", zone: zone, ["a": "alpha", "b": 2, "c": 3.5])], in: context)[0]

        context.step("desiredKeys nil")
        let all = try onePage(db, everything(), zoneID: zone, desiredKeys: nil, in: context)
        try context.expectEqual(all.first?.allKeys(), ["a", "b", "c"], "fields with desiredKeys nil")
        try context.expectEqual(all.first?["a"] as String?, "alpha", "value of a")
        try context.expectEqual(all.first?["b"] as Int?, 2, "value of b")

        context.step("desiredKeys []")
        let none = try onePage(db, everything(), zoneID: zone, desiredKeys: [], in: context)
        guard let bare = none.first, none.count == 1 else {
            throw context.failure(expected: "one record with desiredKeys []", actual: "\(none.count) records")
        }
        try context.expectEqual(bare.allKeys(), [], "fields with desiredKeys []")
        try context.expectEqual(bare.recordID, saved.recordID, "record ID with desiredKeys []")
        try context.expectEqual(bare.recordType, "Item", "record type with desiredKeys []")
        try context.expectEqual(bare.recordChangeTag, saved.recordChangeTag, "change tag with desiredKeys []")
        try context.expect(
            bare.creationDate != nil && bare.modificationDate != nil,
            "creation and modification dates with desiredKeys []",
            actual:
                "creationDate \(String(describing: bare.creationDate)), modificationDate \(String(describing: bare.modificationDate))"
        )

        context.step("desiredKeys [a, c, missing]")
        let some = try onePage(db, everything(), zoneID: zone, desiredKeys: ["a", "c", "missing"], in: context)
        try context.expectEqual(some.first?.allKeys(), ["a", "c"], "fields with desiredKeys [a, c, missing]")
        try context.expectEqual(some.first?["c"] as Double?, 3.5, "value of c")
        try context.expectEqual(some.first?.recordChangeTag, saved.recordChangeTag, "change tag with a key list")
    }

    static let stringEqualityAndPrefix = ConformanceCase(
        "queries.stringEqualityAndPrefix", invariants: [26],
        "String equality matches case-insensitively; BEGINSWITH matches case-sensitively."
    ) { context in
        let db = try context.container().privateCloudDatabase
        context.step("create zone Q and records named Apple, APPLE, apple, Applesauce, Banana")
        let zone = try Ops.createZones(db, ["Q"], in: context)[0]
        let values = ["upper": "Apple", "shout": "APPLE", "lower": "apple", "sauce": "Applesauce", "banana": "Banana"]
        _ = try Ops.saveAll(db, values.map { makeRecord($0.key, zone: zone, ["name": $0.value]) }, in: context)

        try context.expectEqual(
            try matchNames(db, "name == 'apple'", zone: zone, in: context), ["lower", "shout", "upper"],
            "matches of name == 'apple'")
        try context.expectEqual(
            try matchNames(db, "name == %@", ["aPPle"], zone: zone, in: context), ["lower", "shout", "upper"],
            "matches of name == 'aPPle'")
        try context.expectEqual(
            try matchNames(db, "name != 'APPLE'", zone: zone, in: context), ["banana", "sauce"],
            "matches of name != 'APPLE'")
        try context.expectEqual(
            try matchNames(db, "name BEGINSWITH 'App'", zone: zone, in: context), ["sauce", "upper"],
            "matches of name BEGINSWITH 'App'")
        try context.expectEqual(
            try matchNames(db, "name BEGINSWITH %@", ["app"], zone: zone, in: context), ["lower"],
            "matches of name BEGINSWITH 'app'")
        try context.expectEqual(
            try matchNames(db, "name BEGINSWITH 'APP'", zone: zone, in: context), ["shout"],
            "matches of name BEGINSWITH 'APP'")
        try context.expectEqual(
            try matchNames(db, "name BEGINSWITH 'b'", zone: zone, in: context), [], "matches of name BEGINSWITH 'b'")
    }

    static let listMembership = ConformanceCase(
        "queries.listMembership", invariants: [27],
        "CONTAINS, IN and ANY = over a list field are the same membership test; IN over a set tests a scalar field."
    ) { context in
        let db = try context.container().privateCloudDatabase
        context.step("create zone Q and records with colour lists and a scalar colour")
        let zone = try Ops.createZones(db, ["Q"], in: context)[0]
        _ = try Ops.saveAll(
            db,
            [
                makeRecord("rg", zone: zone, ["colors": ["red", "green"], "color": "red"]),
                makeRecord("b", zone: zone, ["colors": ["blue"], "color": "blue"]),
                makeRecord("reddish", zone: zone, ["colors": ["reddish", "greenish"], "color": "reddish"]),
                makeRecord("gr", zone: zone, ["colors": ["green", "red", "blue"], "color": "green"]),
                makeRecord("none", zone: zone, ["color": "black"]),
            ], in: context)
        let forms: [(String, [Any])] = [
            ("colors CONTAINS 'red'", [Any]()), ("colors CONTAINS %@", ["red"]), ("'red' IN colors", []),
            ("%@ IN colors", ["red"]), ("ANY colors == 'red'", []), ("ANY colors = %@", ["red"]),
        ]
        for (format, args) in forms {
            try context.expectEqual(
                try matchNames(db, format, args, zone: zone, in: context), ["gr", "rg"], "matches of \(format)")
        }
        try context.expectEqual(
            try matchNames(db, "colors CONTAINS 'blue'", zone: zone, in: context), ["b", "gr"],
            "matches of colors CONTAINS 'blue'")
        try context.expectEqual(
            try matchNames(db, "color IN {'red', 'green'}", zone: zone, in: context), ["gr", "rg"],
            "matches of color IN {'red', 'green'}")
        try context.expectEqual(
            try matchNames(db, "color IN %@", [["blue", "black"]], zone: zone, in: context), ["b", "none"],
            "matches of color IN [blue, black]")
        try context.expectEqual(
            try matchNames(db, "ANY colors BEGINSWITH 'gree'", zone: zone, in: context), ["gr", "reddish", "rg"],
            "matches of ANY colors BEGINSWITH 'gree'")
    }

    static let tokenSearch = ConformanceCase(
        "queries.tokenSearch", invariants: [28],
        "self CONTAINS matches any token in any string field, ignores stop words, case and diacritics; AND of two searches requires both."
    ) { context in
        let db = try context.container().privateCloudDatabase
        context.step("create zone Q and records with text in several string fields")
        let zone = try Ops.createZones(db, ["Q"], in: context)[0]
        _ = try Ops.saveAll(
            db,
            [
                makeRecord("bobsmith", zone: zone, ["title": "Bob Smith", "n": 1]),
                makeRecord("cafe", zone: zone, ["title": "The Café Résumé"]),
                makeRecord("bobby", zone: zone, ["title": "bobby tables"]),
                makeRecord("split", zone: zone, ["title": "Alice", "note": "met SMITH at noon"]),
                makeRecord("zurich", zone: zone, ["place": "Zürich Lake"]),
            ], in: context)
        let expectations: [(String, [String])] = [
            ("self CONTAINS 'bob'", ["bobsmith"]),
            ("self CONTAINS 'bob smith'", ["bobsmith", "split"]),
            ("self CONTAINS 'BOB'", ["bobsmith"]),
            ("self CONTAINS 'the bob'", ["bobsmith"]),
            ("self CONTAINS 'of the and bobby'", ["bobby"]),
            ("self CONTAINS 'cafe'", ["cafe"]),
            ("self CONTAINS 'RESUME'", ["cafe"]),
            ("self CONTAINS 'café'", ["cafe"]),
            ("self CONTAINS 'smith'", ["bobsmith", "split"]),
            ("self CONTAINS 'zurich'", ["zurich"]),
            ("self CONTAINS 'ZÜRICH lake'", ["zurich"]),
            ("self CONTAINS 'bob' AND self CONTAINS 'smith'", ["bobsmith"]),
            ("self CONTAINS 'alice' AND self CONTAINS 'smith'", ["split"]),
            ("self CONTAINS 'alice' AND self CONTAINS 'bob'", []),
            ("self CONTAINS 'nothing'", []),
        ]
        for (format, expected) in expectations {
            try context.expectEqual(
                try matchNames(db, format, zone: zone, in: context), expected, "matches of \(format)")
        }
    }

    static let distanceRadius = ConformanceCase(
        "queries.distanceRadius", invariants: [29],
        "distanceToLocation:fromLocation:(field, p) < r returns exactly the records within r km of p."
    ) { context in
        let db = try context.container().privateCloudDatabase
        context.step("create zone Q and records 1, 50, 200 and 1000 km north of Paris, and one without a location")
        let zone = try Ops.createZones(db, ["Q"], in: context)[0]
        let paris = (latitude: 48.8566, longitude: 2.3522)
        let kmPerDegree = 111.19  // along a meridian
        let distances = ["km1": 1.0, "km50": 50.0, "km200": 200.0, "km1000": 1000.0]
        var records = distances.map { name, km in
            makeRecord(
                name, zone: zone,
                ["location": CLLocation(latitude: paris.latitude + km / kmPerDegree, longitude: paris.longitude)])
        }
        records.append(makeRecord("nowhere", zone: zone, ["n": 1]))
        records.append(
            makeRecord(
                "west", zone: zone,
                [
                    "location": CLLocation(
                        latitude: paris.latitude,
                        longitude: paris.longitude - 150 / (kmPerDegree * cos(paris.latitude * .pi / 180)))
                ]))
        _ = try Ops.saveAll(db, records, in: context)
        let centre = CLLocation(latitude: paris.latitude, longitude: paris.longitude)
        let expectations: [(Double, [String])] = [
            (0.5, []), (10, ["km1"]), (100, ["km1", "km50"]), (175, ["km1", "km50", "west"]),
            (500, ["km1", "km200", "km50", "west"]), (5000, ["km1", "km1000", "km200", "km50", "west"]),
        ]
        for (radius, expected) in expectations {
            let format = "distanceToLocation:fromLocation:(location, %@) < %@"
            try context.expectEqual(
                try matchNames(db, format, [centre, radius], zone: zone, in: context), expected,
                "records within \(radius) km")
        }
    }

    static let unsupportedPredicates = ConformanceCase(
        "queries.unsupportedPredicates", invariants: [30],
        "ALL, NOT over AND, ENDSWITH, LIKE, MATCHES, OR, key paths, string CONTAINS and block predicates fail with invalidArguments."
    ) { context in
        let db = try context.container().privateCloudDatabase
        context.step("create zone Q and a record with a string, a number, a list and a reference")
        let zone = try Ops.createZones(db, ["Q"], in: context)[0]
        let target = makeRecord("target", zone: zone, ["name": "t"])
        _ = try Ops.saveAll(
            db,
            [
                target,
                makeRecord(
                    "r", zone: zone,
                    [
                        "name": "Bob", "n": 1, "tags": ["x", "y"],
                        "owner": CKRecord.Reference(recordID: target.recordID, action: .none),
                    ]),
            ], in: context)
        let formats = [
            "ALL tags == 'x'", "NOT (n == 1 AND name == 'Bob')", "name ENDSWITH 'ob'", "name LIKE 'B*'",
            "name MATCHES '.*'", "n == 1 OR name == 'Bob'", "owner.name == 't'", "name CONTAINS 'o'",
            "NOT (self CONTAINS 'bob')",
        ]
        for format in formats {
            context.step("query: \(format)")
            for sorted in [false, true] {
                let query = matching(format)
                if sorted { query.sortDescriptors = [NSSortDescriptor(key: "n", ascending: true)] }
                let page = Ops.query(db, query, zoneID: zone)
                try context.expectEqual(
                    ckCode(page.error), .invalidArguments,
                    "error of \(format) (\(sorted ? "sorted" : "unsorted"); \(Reads.describe(page.error)))")
                try context.expectEqual(page.records.count, 0, "records delivered for \(format)")
            }
        }
        context.step("query with a block predicate")
        let block = Ops.query(db, CKQuery(recordType: "Item", predicate: NSPredicate { _, _ in true }), zoneID: zone)
        try context.expectEqual(
            ckCode(block.error), .invalidArguments, "error of a block predicate (\(Reads.describe(block.error)))")
        context.step("a supported query on the same data still works")
        try context.expectEqual(
            try matchNames(db, "name == 'bob' AND n == 1", zone: zone, in: context), ["r"],
            "matches of a supported query")
    }

    // MARK: Scope and visibility

    static let zonelessPrivateQuerySearchesAllZones = ConformanceCase(
        "queries.zonelessPrivateQuerySearchesAllZones", invariants: [31],
        "A private-database query without a zone ID searches every zone, the default zone included."
    ) { context in
        let db = try context.container().privateCloudDatabase
        context.step("create zones A and B; one matching and one non-matching record in each and in the default zone")
        let zones = try Ops.createZones(db, ["A", "B"], in: context) + [CKRecordZone.ID.default]
        for zone in zones {
            _ = try Ops.saveAll(
                db, [makeRecord("hit", zone: zone, ["n": 1]), makeRecord("miss", zone: zone, ["n": 2])], in: context)
        }
        for sorted in [false, true] {
            context.step("zone-less query n == 1, \(sorted ? "sorted" : "unsorted")")
            let query = matching("n == %@", [1])
            if sorted { query.sortDescriptors = [NSSortDescriptor(key: "n", ascending: true)] }
            let records = try onePage(db, query, in: context)
            try context.expectEqual(
                Set(records.map(\.recordID)), Set(zones.map { CKRecord.ID(recordName: "hit", zoneID: $0) }),
                "IDs of the matches (one per zone)")
            try context.expectEqual(records.count, 3, "number of matches")
        }
        context.step("the same query restricted to zone A")
        try context.expectEqual(
            try onePage(db, matching("n == %@", [1]), zoneID: zones[0], in: context).map(\.recordID),
            [CKRecord.ID(recordName: "hit", zoneID: zones[0])], "matches in zone A only")
    }

    static let zonelessSharedQueryRejected = ConformanceCase(
        "queries.zonelessSharedQueryRejected", invariants: [31],
        "A shared-database query without a zone ID is rejected with invalidArguments."
    ) { context in
        let container = try context.container()
        context.step("save a record in the private database so the record type exists")
        _ = try Ops.saveAll(container.privateCloudDatabase, [makeRecord("r", zone: .default, ["n": 1])], in: context)
        context.step("zone-less query in the shared database")
        let page = Ops.query(container.sharedCloudDatabase, everything())
        try context.expectEqual(
            ckCode(page.error), .invalidArguments, "error of a zone-less shared query (\(Reads.describe(page.error)))")
        try context.expectEqual(page.records.count, 0, "records delivered")
    }

    static let committedWritesAreVisible = ConformanceCase(
        "queries.committedWritesAreVisible", invariants: [32],
        "Each committed save, change and delete is reflected by the very next query (no index lag)."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Q"], in: context)[0]
        for i in 0..<8 {
            context.step("round \(i): save record r\(i) with score \(i)")
            var record = try Ops.saveAll(
                db, [makeRecord("r\(i)", zone: zone, ["score": i, "word": "w\(i)"])], in: context)[0]
            try context.expect(
                try matchNames(db, "score == %@", [i], zone: zone, in: context) == ["r\(i)"],
                "r\(i) found by score == \(i)",
                actual: "not found")
            let sorted = everything(sortedBy: [("score", true)])
            try context.expectEqual(
                try onePage(db, sorted, zoneID: zone, in: context).first?.recordID.recordName, "r\(i)",
                "first record by score ascending (the others were changed to scores ≥ 100)")

            context.step("round \(i): change its score to \(100 + i)")
            record["score"] = 100 + i
            record = try Ops.saveAll(db, [record], in: context)[0]
            try context.expectEqual(
                try matchNames(db, "score == %@", [i], zone: zone, in: context), [], "matches of the old score \(i)")
            try context.expectEqual(
                try matchNames(db, "score == %@", [100 + i], zone: zone, in: context), ["r\(i)"],
                "matches of the new score")
            try context.expectEqual(
                try matchNames(db, "self CONTAINS %@", ["w\(i)"], zone: zone, in: context), ["r\(i)"],
                "token search for w\(i)")
        }
        context.step("delete r3")
        let deleted = Ops.modify(db, delete: [CKRecord.ID(recordName: "r3", zoneID: zone)])
        try context.expect(
            deleted.error == nil
                && Reads.errorCode(deleted.deleted[CKRecord.ID(recordName: "r3", zoneID: zone)]) == nil,
            "the delete succeeds", actual: Reads.describe(deleted.deleted[CKRecord.ID(recordName: "r3", zoneID: zone)]))
        try context.expectEqual(
            try matchNames(db, "score == %@", [103], zone: zone, in: context), [],
            "matches of r3's score after the delete")
        try context.expectEqual(
            try matchNames(db, "score >= %@", [100], zone: zone, in: context),
            ["r0", "r1", "r2", "r4", "r5", "r6", "r7"],
            "records left after the delete")
    }

    static let sortedSeesLatestState = ConformanceCase(
        "queries.sortedSeesLatestState", invariants: [21, 22, 32],
        "After sorted queries built their indexes, every kind of change (one sorted field, another, only the parent, an unchanged re-save, a field removed, a cascade, a delete and re-create) leaves every sorted walk returning each live record once, in its latest state."
    ) { context in
        let db = try context.container().privateCloudDatabase
        context.step("create zone S, a folder, an owner and 8 records with sorted fields a, b and c")
        let zone = try Ops.createZones(db, ["S"], in: context)[0]
        let folder = makeRecord("folder", type: "Folder", zone: zone)
        let owner = makeRecord("owner", type: "Folder", zone: zone)
        _ = try Ops.saveAll(db, [folder, owner], in: context)
        let saved = try Ops.saveAll(
            db,
            (0..<8).map { n in
                let record = makeRecord("d\(n)", zone: zone, ["a": n, "b": "s\(7 - n)", "c": n % 3])
                if n == 5 { record["owner"] = CKRecord.Reference(recordID: owner.recordID, action: .deleteSelf) }
                return record
            },
            in: context)
        let keys = ["a", "b", "c", "modificationDate"]

        func expectLatest(_ live: [String], _ when: String) throws {
            let ids = live.map { CKRecord.ID(recordName: $0, zoneID: zone) }
            var tags: [String: String?] = [:]
            for id in ids { tags[id.recordName] = try Reads.record(db, id, in: context).recordChangeTag }
            for key in keys {
                for ascending in [true, false] {
                    let walked = try Reads.allPages(
                        db, everything(sortedBy: [(key, ascending)]), zoneID: zone, limit: 2, in: context
                    ).flatMap { $0 }
                    try context.expectEqual(
                        walked.map(\.recordID.recordName).sorted(), live.sorted(),
                        "\(when): records of the walk sorted by \(key) \(ascending ? "ascending" : "descending")")
                    for record in walked {
                        try context.expectEqual(
                            record.recordChangeTag, tags[record.recordID.recordName] ?? nil,
                            "\(when): change tag of \(record.recordID.recordName) sorted by \(key)")
                    }
                }
            }
        }
        context.step("walk every sort (the indexes are built)")
        try expectLatest((0..<8).map { "d\($0)" }, "before the changes")

        context.step("change a on d1, b on d2, only the parent of d3, re-save d4 unchanged, remove c from d6")
        saved[1]["a"] = 100
        saved[2]["b"] = "zzz"
        saved[3].setParent(folder.recordID)
        saved[6]["c"] = nil
        _ = try Ops.saveAll(db, [saved[1], saved[2], saved[3], saved[4], saved[6]], in: context)
        context.step("delete the owner (d5 cascades) and d7, then create d7 again with only a")
        let deleted = Ops.modify(db, delete: [owner.recordID, saved[7].recordID])
        try context.expect(deleted.error == nil, "the deletes succeed", actual: Reads.describe(deleted.error))
        _ = try Ops.saveAll(db, [makeRecord("d7", zone: zone, ["a": -7])], in: context)

        context.step("walk every sort again")
        try expectLatest(["d0", "d1", "d2", "d3", "d4", "d6", "d7"], "after the changes")
        let byA = try Reads.allPages(db, everything(sortedBy: [("a", true)]), zoneID: zone, limit: 3, in: context)
        try context.expectEqual(
            byA.flatMap { $0 }.map(\.recordID.recordName), ["d7", "d0", "d2", "d3", "d4", "d6", "d1"],
            "order by a ascending after the changes")
    }

    static let cursorsOverInterleavedTypesWithChangesBetweenPages = ConformanceCase(
        "cursors.interleavedTypesWithChangesBetweenPages", invariants: [21, 22, 32],
        "An unsorted walk of one type among records of other types in the same zone returns each of its records at most once, never a record deleted before its page was read, and every record of the type ahead of the cursor, whatever was deleted, re-created (also as another type) or inserted between pages."
    ) { context in
        let db = try context.container().privateCloudDatabase
        context.step("create zone T and 60 records, every third a Cat, the others Dogs")
        let zone = try Ops.createZones(db, ["T"], in: context)[0]
        func name(_ n: Int) -> String { "p" + String(repeating: "0", count: n < 10 ? 1 : 0) + "\(n)" }
        _ = try Ops.saveAll(
            db, (0..<60).map { makeRecord(name($0), type: $0 % 3 == 0 ? "Cat" : "Dog", zone: zone, ["n": $0]) },
            in: context)
        context.step("read the first page of Cats (4 records)")
        var page = Ops.query(db, everything("Cat"), zoneID: zone, limit: 4)
        if let error = page.error {
            throw context.failure(expected: "the query succeeds", actual: Reads.describe(error))
        }
        var names = page.records.map(\.recordID.recordName)
        try context.expectEqual(names, ["p00", "p03", "p06", "p09"], "first page")

        context.step(
            "ahead of the cursor: delete Cats p15 and p18 and Dog p20; re-create p18 as a Dog, p20 as a Cat; delete and re-create Cat p30; insert Cat p31x"
        )
        let ids = ["p15", "p18", "p20", "p30"].map { CKRecord.ID(recordName: $0, zoneID: zone) }
        let deleted = Ops.modify(db, delete: ids)
        try context.expect(deleted.error == nil, "the deletes succeed", actual: Reads.describe(deleted.error))
        _ = try Ops.saveAll(
            db,
            [
                makeRecord("p18", type: "Dog", zone: zone), makeRecord("p20", type: "Cat", zone: zone),
                makeRecord("p30", type: "Cat", zone: zone), makeRecord("p31x", type: "Cat", zone: zone),
            ],
            in: context)
        context.step("follow the cursors")
        var pages = 1
        while let cursor = page.cursor, pages < 50 {
            page = Ops.query(db, cursor: cursor, limit: 4)
            if let error = page.error {
                throw context.failure(expected: "page \(pages + 1) succeeds", actual: Reads.describe(error))
            }
            names += page.records.map(\.recordID.recordName)
            pages += 1
        }
        var expected = stride(from: 0, to: 60, by: 3).map(name).filter { $0 != "p15" && $0 != "p18" }
        expected += ["p20", "p31x"]
        try context.expectEqual(names, expected.sorted(), "Cats of the walk, in record-name order")
        context.step("a type with no record in the zone: no record and no cursor")
        _ = try Ops.saveAll(db, [makeRecord("bird", type: "Bird", zone: .default)], in: context)
        let birds = Ops.query(db, everything("Bird"), zoneID: zone, limit: 3)
        try context.expect(
            birds.error == nil && birds.records.isEmpty && birds.cursor == nil, "an empty last page",
            actual: "\(birds.records.count) records, cursor \(birds.cursor != nil), \(Reads.describe(birds.error))")
    }

    static let unknownRecordType = ConformanceCase(
        "queries.unknownRecordType",
        "A query for a record type that was never saved fails with unknownItem (engine decision, as CloudKit's \"Did not find record type\")."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Q"], in: context)[0]
        _ = try Ops.saveAll(db, [makeRecord("r", zone: zone)], in: context)
        context.step("query type Never in zone Q and without a zone")
        for zoneID in [zone, nil] {
            let page = Ops.query(db, everything("Never"), zoneID: zoneID)
            try context.expectEqual(
                ckCode(page.error), .unknownItem, "error of a query for an unknown type (\(Reads.describe(page.error)))"
            )
        }
    }
}

extension Reads {
    /// Every record after `cursor`, following further cursors; `query`/`zoneID` are set on each
    /// continuation operation (they must be ignored).
    static func restPages(
        _ database: CKDatabase, from cursor: CKQueryOperation.Cursor, overriding query: CKQuery?,
        zoneID: CKRecordZone.ID?,
        limit: Int
    ) -> (records: [CKRecord], error: (any Error)?) {
        var records: [CKRecord] = []
        var next: CKQueryOperation.Cursor? = cursor
        var pages = 0
        while let current = next, pages < 100 {
            let page = Ops.query(database, query, cursor: current, zoneID: zoneID, limit: limit)
            if let error = page.error { return (records, error) }
            records += page.records
            next = page.cursor
            pages += 1
        }
        return (records, nil)
    }
}

/// A stand-in for `CKQueryOperation.Cursor` in archives: the same coded keys, so the
/// position bytes of an archived cursor can be read and altered. Top-level, because
/// swift-corelibs-foundation's `NSKeyedArchiver` traps on nested classes.
final class ConformanceCursorStandIn: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var data: Data
    let query: CKQuery?
    let zoneID: CKRecordZone.ID?

    init?(coder: NSCoder) {
        guard let data = coder.decodeObject(of: NSData.self, forKey: "Data") else { return nil }
        self.data = data as Data
        self.query = coder.decodeObject(of: CKQuery.self, forKey: "Query")
        self.zoneID = coder.decodeObject(of: CKRecordZone.ID.self, forKey: "ZoneID")
    }

    /// Archived as the cursor class, so the archive unarchives as a cursor.
    /// (`NSKeyedArchiver.setClassName(_:for:)` does not take effect in swift-corelibs-foundation.)
    override var classForKeyedArchiver: AnyClass? { CKQueryOperation.Cursor.self }

    func encode(with coder: NSCoder) {
        coder.encode(data as NSData, forKey: "Data")
        if let query { coder.encode(query, forKey: "Query") }
        if let zoneID { coder.encode(zoneID, forKey: "ZoneID") }
    }
}

/// Archiving query cursors, and altering the position bytes inside an archive: a stand-in
/// class reads and writes the cursor's coded keys under the cursor's class name.
enum CursorArchive {
    typealias StandIn = ConformanceCursorStandIn

    struct ArchiveError: Error, CustomStringConvertible {
        var description: String
    }

    /// Fails unless the classes an archived cursor holds can be keyed-archived here.
    ///
    /// swift-corelibs-foundation's `NSKeyedArchiver` names classes with `NSStringFromClass`,
    /// which traps (ending the process) for a class that is not top-level, such as
    /// `Stratus.CKQueryOperation.Cursor`; CloudKit's own classes are top-level
    /// (`CKQueryCursor`, `CKRecordZoneID`) with nested Swift names. This check reports that as a
    /// failure of the case instead of crashing the test run.
    static func checkArchivable() throws {
        #if !canImport(Darwin)
            for type in [CKQueryOperation.Cursor.self, CKRecordZone.ID.self, CKQuery.self] as [AnyClass] {
                let name = String(reflecting: type)
                if name.split(separator: ".").count != 2 {
                    throw ArchiveError(
                        description: "\(name) is not a top-level class, so NSKeyedArchiver on Linux cannot archive it "
                            + "(NSStringFromClass traps); declare it top-level (as CloudKit's CKQueryCursor / CKRecordZoneID) "
                            + "and keep the nested name as a typealias")
                }
            }
        #endif
    }

    /// The cursor archived with secure coding and unarchived again.
    static func roundTrip(_ cursor: CKQueryOperation.Cursor) throws -> CKQueryOperation.Cursor {
        try checkArchivable()
        let archive = try NSKeyedArchiver.archivedData(withRootObject: cursor, requiringSecureCoding: true)
        guard
            let restored = try NSKeyedUnarchiver.unarchivedObject(ofClass: CKQueryOperation.Cursor.self, from: archive)
        else {
            throw ArchiveError(description: "unarchiving the cursor returned nil")
        }
        return restored
    }

    /// The cursor's archived form, read through the stand-in.
    private static func standIn(_ cursor: CKQueryOperation.Cursor) throws -> StandIn {
        try checkArchivable()
        let archive = try NSKeyedArchiver.archivedData(withRootObject: cursor, requiringSecureCoding: true)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archive)
        unarchiver.setClass(StandIn.self, forClassName: NSStringFromClass(CKQueryOperation.Cursor.self))
        guard let standIn = unarchiver.decodeObject(of: StandIn.self, forKey: NSKeyedArchiveRootObjectKey) else {
            throw ArchiveError(
                description: "the archived cursor has no 'Data' key: \(String(describing: unarchiver.error))")
        }
        unarchiver.finishDecoding()
        return standIn
    }

    /// The number of bytes of the cursor's archived position.
    static func positionLength(_ cursor: CKQueryOperation.Cursor) throws -> Int {
        try standIn(cursor).data.count
    }

    /// The cursor with byte `offset` of its archived position inverted.
    static func flippingByte(at offset: Int, of cursor: CKQueryOperation.Cursor) throws -> CKQueryOperation.Cursor {
        let standIn = try standIn(cursor)
        var bytes = [UInt8](standIn.data)
        bytes[offset] ^= 0xFF
        standIn.data = Data(bytes)
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode(standIn, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        guard
            let tampered = try NSKeyedUnarchiver.unarchivedObject(
                ofClass: CKQueryOperation.Cursor.self, from: archiver.encodedData)
        else {
            throw ArchiveError(description: "unarchiving the altered cursor returned nil")
        }
        return tampered
    }
}
