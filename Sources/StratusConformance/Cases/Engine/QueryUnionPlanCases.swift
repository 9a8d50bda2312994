import Foundation
import Stratus

/// Queries whose plan reads several groups of an index that can hold one record more than once
/// (decision 0019.8): `list IN {a, b}` and a full-text search of several words (unions),
/// `list CONTAINS {a, b}` and `self CONTAINS 'a' AND self CONTAINS 'b'` (intersections), and
/// `ANY list BEGINSWITH p`. They are compared with the unindexed evaluator: every record of the
/// type read by a query no index answers (`TRUEPREDICATE`, the scan: by zone, then name),
/// filtered by the predicate's own evaluation.
enum QueryUnionPlanCases {
    static var all: [ConformanceCase] { [unionPlansMatchTheEvaluator, unionPagesWithWritesBetween] }

    /// A record as `PredicateSubject`: its fields as predicate values, its strings as the text
    /// of a full-text search (every string field is searchable in the development schema).
    struct Subject: PredicateSubject {
        var record: CKRecord

        func predicateValue(forKey key: String) -> PredicateValue? {
            record[key].flatMap { try? PredicateValue(argument: $0) }
        }

        var searchableText: [String] {
            record.allKeys().flatMap { key -> [String] in
                if let text = record[key] as? String { return [text] }
                return record[key] as? [String] ?? []
            }
        }
    }

    /// Element values that share prefixes, differ in case and accents, or compose differently.
    static let colors = [
        "red", "Red", "RED", "reed", "Redwood", "rose", "r\u{E9}d", "re\u{301}d", "blue", "BLUE", "bl\u{FC}e",
        "gr\u{FC}n", "gru\u{308}n", "green", "grey", "\u{1F600}",
    ]
    static let words = ["alpha", "Beta", "caf\u{E9}", "CAFE", "zeta", "red", "the", "Smile", "blue", "a"]

    static func record(_ index: Int, rng: inout SeededGenerator, zones: [CKRecordZone.ID]) -> CKRecord {
        let zone = zones[Int.random(in: 0..<zones.count, using: &rng)]
        let record = CKRecord(
            recordType: "Unioned", recordID: CKRecord.ID(recordName: String(format: "u%03d", index), zoneID: zone))
        if Int.random(in: 0..<5, using: &rng) > 0 {
            record["tags"] = (0..<Int.random(in: 0..<4, using: &rng)).map { _ in colors.randomElement(using: &rng)! }
        }
        if Int.random(in: 0..<5, using: &rng) > 0 {
            record["nums"] = (0..<Int.random(in: 1..<4, using: &rng)).map { _ in Int.random(in: 0..<6, using: &rng) }
        }
        if Int.random(in: 0..<5, using: &rng) > 0 {
            let count = Int.random(in: 1..<4, using: &rng)
            record["title"] = (0..<count).map { _ in words.randomElement(using: &rng)! }.joined(separator: ", ")
        }
        record["k"] = Int.random(in: 0..<20, using: &rng)
        return record
    }

    /// Predicates (format, arguments) and whether their plan keeps the scan's order; the others
    /// (a prefix of a list's elements) come in the index's order: by the first element in the
    /// range, folded, then zone and name (decision 0019.8).
    static var probes: [(format: String, args: [Any], scanOrder: Bool)] {
        [
            ("tags IN %@", [["red", "BLUE", "zz"]], true),
            ("ANY tags IN %@", [["gr\u{FC}n", "grey", "rose"]], true),
            ("tags IN %@", [["reed"]], true),
            ("ANY tags == %@", ["RED"], true),
            ("tags CONTAINS %@", [["red", "blue"]], true),
            ("tags CONTAINS %@", [["red", "RED"]], true),
            ("tags CONTAINS %@ AND %@ IN tags", ["grey", "gr\u{FC}n"], true),
            ("tags CONTAINS %@ AND tags IN %@", ["red", ["blue", "grey"]], true),
            ("nums CONTAINS %@", [[1, 4]], true),
            ("nums CONTAINS %@ AND nums CONTAINS %@ AND k >= %@", [0, 5, 4], true),
            ("self CONTAINS %@ AND self CONTAINS %@", ["red", "alpha"], true),
            ("self CONTAINS %@ AND self CONTAINS %@ AND self CONTAINS %@", ["cafe", "BETA", "zeta"], true),
            ("nums IN %@", [[1, 4]], true),
            ("nums IN %@", [[2.0, 5, 99]], true),
            ("tags IN %@ AND k > %@", [["red", "green"], 9], true),
            ("k > %@ AND tags IN %@", [9, ["red", "green"]], true),
            ("tags IN %@", [[] as [String]], true),
            ("self CONTAINS %@", ["red alpha"], true),
            ("self CONTAINS %@", ["CAFE zeta BLUE smile"], true),
            ("self CONTAINS %@", ["the a"], true),
            ("self CONTAINS %@", ["beta"], true),
            ("self CONTAINS %@ AND k < %@", ["red alpha", 10], true),
            // Exact groups of different indexes, or of one match index, walked together by name
            // (decision 0019.9): in the scan's order, whichever term is written first.
            ("tags IN %@ AND k == %@", [["red", "blue", "grey"], 3], true),
            ("k IN %@ AND tags CONTAINS %@", [[1, 2, 3, 4, 5, 6, 7], "red"], true),
            ("k == %@ AND self CONTAINS %@", [11, "red alpha"], true),
            ("self CONTAINS %@ AND tags IN %@", ["red alpha", ["blue", "rose", "Redwood"]], true),
            ("nums IN %@ AND tags IN %@ AND k IN %@", [[1, 4], ["red", "green", "blue"], Array(0..<10)], true),
            ("tags CONTAINS %@ AND nums CONTAINS %@ AND k >= %@", ["red", 2, 5], true),
            ("k BETWEEN %@ AND nums IN %@ AND %@ IN tags", [[3, 15], [0, 5], "blue"], true),
            ("ANY tags BEGINSWITH %@", ["re"], false),
            ("ANY tags BEGINSWITH %@", ["R"], false),
            ("ANY tags BEGINSWITH %@", ["gr"], false),
            ("ANY tags BEGINSWITH %@", ["r\u{E9}"], false),
            ("ANY tags BEGINSWITH %@", ["zz"], false),
            ("ANY tags BEGINSWITH %@ AND k < %@", ["re", 10], false),
        ]
    }

    /// The records of `all` (in the scan's order) that `predicate` matches, by the evaluator.
    static func evaluated(_ predicate: NSPredicate, _ all: [CKRecord], in context: ConformanceContext) throws
        -> [CKRecord]
    {
        guard case .success(let expression) = predicate.stratusPredicate else {
            throw context.failure(expected: "the predicate parses", actual: "\(predicate)")
        }
        return all.filter { expression.evaluate(Subject(record: $0)) }
    }

    /// The index's order of a prefix search's matches (stable: ties keep the scan's order).
    static func prefixOrder(_ records: [CKRecord], prefix: String) -> [CKRecord] {
        func folded(_ s: String) -> [UInt8] {
            Array(PredicateTokenizer.fold(s).precomposedStringWithCanonicalMapping.utf8)
        }
        let wanted = folded(prefix)
        let keyed = records.enumerated().map { offset, record in
            let keys = (record["tags"] as? [String] ?? []).map(folded).filter { $0.starts(with: wanted) }
            return (key: keys.min { $0.lexicographicallyPrecedes($1) } ?? [], offset: offset, record: record)
        }
        return keyed.sorted { a, b in
            a.key == b.key ? a.offset < b.offset : a.key.lexicographicallyPrecedes(b.key)
        }.map(\.record)
    }

    static let unionPlansMatchTheEvaluator = ConformanceCase(
        "queries.unionPlansMatchTheEvaluator", invariants: [21, 22, 23],
        "list IN {…}, ANY list = c, list CONTAINS {…}, searches of several words (any of them) and of several AND-ed words, ANDs of such terms with equalities of other indexes, and ANY list BEGINSWITH, answered from index groups that can hold a record more than once, return exactly what the unindexed evaluator returns on random data, each record once, at every page size: in the scan's order, and for a prefix of a list's elements in the index's order."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zones = try Ops.createZones(db, ["U0", "U1"], in: context)
        let seed: UInt64 = 0x5EED_0198
        var rng = SeededGenerator(seed: seed)
        let records = (0..<220).map { record($0, rng: &rng, zones: zones) }
        context.step("save 220 random records (seed \(seed)) in zones U0 and U1")
        _ = try Ops.saveAll(db, records, in: context)
        context.step("read every record with TRUEPREDICATE (the scan)")
        let all = try Reads.allPages(
            db, CKQuery(recordType: "Unioned", predicate: NSPredicate(value: true)), limit: 0, in: context
        ).flatMap { $0 }
        try context.expectEqual(all.count, records.count, "the scan returns every record")
        for probe in probes {
            let predicate = NSPredicate(format: probe.format, argumentArray: probe.args)
            var expected = try evaluated(predicate, all, in: context)
            if !probe.scanOrder, case let prefix as String = probe.args[0] {
                expected = prefixOrder(expected, prefix: prefix)
            }
            for limit in [0, 1, 6] {
                context.step("\(probe.format) \(probe.args), resultsLimit \(limit)")
                let query = CKQuery(recordType: "Unioned", predicate: predicate)
                let names = try Reads.allPages(db, query, limit: limit, in: context).flatMap { $0 }
                    .map(\.recordID.recordName)
                try context.expectEqual(Set(names).count, names.count, "no record twice: \(names)")
                try context.expectEqual(names, expected.map(\.recordID.recordName), "the evaluator's matches, in order")
            }
        }
    }

    static let unionPagesWithWritesBetween = ConformanceCase(
        "queries.unionPagesWithWritesBetween", invariants: [22, 23, 32],
        "Paging list IN {…}, list CONTAINS {…}, k IN {…} AND list IN {…} and ANY list BEGINSWITH while records' lists change, records are deleted and inserted between pages returns every record that matched throughout and was not touched, exactly once."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zones = try Ops.createZones(db, ["V0", "V1"], in: context)
        var rng = SeededGenerator(seed: 0x5EED_0199)
        let records = (0..<150).map { record($0, rng: &rng, zones: zones) }
        context.step("save 150 random records")
        _ = try Ops.saveAll(db, records, in: context)
        let touched = Set(records.indices.filter { $0 % 7 == 0 }.map { records[$0].recordID })
        var round = 0
        let probes: [(String, [Any])] = [
            ("tags IN %@", [["red", "grey", "rose"]]), ("tags CONTAINS %@", [["red", "reed"]]),
            ("ANY tags BEGINSWITH %@", ["re"]), ("k IN %@ AND tags IN %@", [Array(0..<15), ["red", "grey", "rose"]]),
        ]
        for (format, args) in probes {
            let predicate = NSPredicate(format: format, argumentArray: args)
            let stable = try evaluated(predicate, records, in: context).map(\.recordID).filter { !touched.contains($0) }
            context.step("\(format) \(args), pages of 4, writes between pages")
            var page = Ops.query(db, CKQuery(recordType: "Unioned", predicate: predicate), limit: 4)
            var seen: [CKRecord.ID] = []
            while true {
                if let error = page.error {
                    throw context.failure(expected: "the page succeeds", actual: Reads.describe(error))
                }
                seen += page.records.map(\.recordID)
                guard let cursor = page.cursor else { break }
                round += 1
                try churn(db, records: records, touched: touched, round: round, zones: zones, in: context)
                page = Ops.query(db, cursor: cursor, limit: 4)
            }
            let untouchedSeen = seen.filter { !touched.contains($0) }
            try context.expectEqual(
                Set(untouchedSeen).count, untouchedSeen.count, "no untouched record twice: \(untouchedSeen)")
            let missing = Set(stable).subtracting(seen)
            try context.expect(
                missing.isEmpty, "every untouched match is returned",
                actual: "missing \(missing.map(\.recordName).sorted())")
        }
    }

    /// Between two pages: changes a touched record's list, deletes one, inserts a match.
    private static func churn(
        _ db: CKDatabase, records: [CKRecord], touched: Set<CKRecord.ID>, round: Int, zones: [CKRecordZone.ID],
        in context: ConformanceContext
    ) throws {
        let victims = records.filter { touched.contains($0.recordID) }
        let changedID = victims[round % victims.count].recordID
        let deletedID = victims[(round * 3 + 1) % victims.count].recordID
        let inserted = CKRecord(
            recordType: "Unioned", recordID: CKRecord.ID(recordName: "new\(round)", zoneID: zones[round % 2]))
        inserted["tags"] = ["red", "reed"]
        var saves = [inserted]
        if case .success(let current)? = Reads.fetch(db, [changedID]).results[changedID] {
            current["tags"] = round % 2 == 0 ? ["rose", "Red"] : ["blue"]
            saves.append(current)
        }
        _ = try Ops.saveAll(db, saves, in: context)
        _ = Ops.modify(db, delete: [deletedID])
    }
}
