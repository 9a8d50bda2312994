import Foundation
import Stratus

/// Queries answered from value indexes (decision 0019) against an oracle: the same random
/// records, the same predicates, evaluated here in Swift. A plan may read an index or scan;
/// either way the answer must be the oracle's — every match once, in the sort's order when
/// sorted — across page boundaries and with writes between pages.
enum QueryPlanCases {
    static var all: [ConformanceCase] { [indexedOperatorsMatchTheOracle, indexedPagesWithWritesBetween] }

    /// One generated record, as the oracle sees it.
    struct Model {
        var name: String
        var zone: Int
        var k: Int?
        var x: Double?
        var title: String?
        var day: Date?
        var owner: String?
        var tags: [String]?
        var nums: [Int]?
    }

    /// A predicate, its arguments, and what it means in Swift.
    struct Probe {
        var format: String
        var args: [Any]
        var holds: (Model) -> Bool
    }

    static let base = Date(timeIntervalSinceReferenceDate: 800_000_000)

    /// Strings that stress the index's encoding: case, composed and decomposed accents, a NUL,
    /// shared prefixes, values longer than the 200 indexed bytes that differ after them, and
    /// ᾳ (U+1FB3), equal to "αι" by case folding but "α" once diacritics are folded too.
    static let titles: [String] = {
        let long = String(repeating: "p", count: 210)
        return [
            "alpha", "Alpha", "alphabet", "ab", "abc", "abd", "b", "B", "beta", "m", "mango", "Mango", "zeta",
            "caf\u{E9}", "cafe\u{301}", "cafe", "a\u{0}b", "", long + "a", long + "b", "\u{1F600} smile",
            "\u{E9}t\u{E9}", "e\u{301}te\u{301}", "\u{1FB3}", "\u{3B1}\u{3B9}", "\u{3B1}", "\u{3B1}\u{345}\u{301}",
        ]
    }()

    static let colors = ["red", "Red", "blue", "BLUE", "gr\u{FC}n", "gru\u{308}n", "green", "\u{1FB3}"]

    /// CloudKit's string equality: case-insensitive (`[d]`, which Web Services cannot express,
    /// is checked by an embedded test).
    static func equal(_ a: String, _ b: String) -> Bool {
        a.folding(options: .caseInsensitive, locale: nil) == b.folding(options: .caseInsensitive, locale: nil)
    }

    /// The full-text tokens of a record's strings, as CloudKit makes them: folded, split at
    /// what is not a letter or a digit (none of these values holds a stop word).
    static func tokens(_ m: Model) -> Set<String> {
        let texts = [m.title].compactMap { $0 } + (m.tags ?? [])
        return Set(
            texts.flatMap {
                $0.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
                    .split { !($0.isLetter || $0.isNumber) }.map(String.init)
            })
    }

    static func models(seed: UInt64, count: Int) -> [Model] {
        var rng = SeededGenerator(seed: seed)
        return (0..<count).map { i in
            Model(
                name: String(format: "r%04d", i), zone: Int.random(in: 0..<2, using: &rng),
                k: Int.random(in: 0..<12, using: &rng) == 0 ? nil : Int.random(in: 0..<50, using: &rng),
                x: Int.random(in: 0..<10, using: &rng) == 0 ? nil : Double(Int.random(in: -20...20, using: &rng)) / 4,
                title: Int.random(in: 0..<10, using: &rng) == 0 ? nil : titles.randomElement(using: &rng),
                day: base.addingTimeInterval(Double(Int.random(in: 0..<40, using: &rng)) * 86_400),
                owner: Int.random(in: 0..<5, using: &rng) == 0 ? nil : "target\(Int.random(in: 0..<8, using: &rng))",
                tags: Int.random(in: 0..<4, using: &rng) == 0
                    ? nil : (0..<Int.random(in: 0..<4, using: &rng)).map { _ in colors.randomElement(using: &rng)! },
                nums: Int.random(in: 0..<4, using: &rng) == 0
                    ? nil : (0..<Int.random(in: 1..<4, using: &rng)).map { _ in Int.random(in: 0..<6, using: &rng) })
        }
    }

    static func record(_ m: Model, zones: [CKRecordZone.ID]) -> CKRecord {
        let zone = zones[m.zone]
        let record = CKRecord(recordType: "Planned", recordID: CKRecord.ID(recordName: m.name, zoneID: zone))
        if let k = m.k { record["k"] = k }
        if let x = m.x { record["x"] = x }
        if let title = m.title { record["title"] = title }
        if let day = m.day { record["day"] = day }
        if let tags = m.tags { record["tags"] = tags }
        if let nums = m.nums { record["nums"] = nums }
        if let owner = m.owner {
            record["owner"] = CKRecord.Reference(
                recordID: CKRecord.ID(recordName: owner, zoneID: zone), action: .none)
        }
        return record
    }

    static func probes(zones: [CKRecordZone.ID]) -> [Probe] {
        let day10 = base.addingTimeInterval(10 * 86_400)
        let day20 = base.addingTimeInterval(20 * 86_400)
        let target = CKRecord.Reference(recordID: CKRecord.ID(recordName: "target3", zoneID: zones[0]), action: .none)
        return [
            Probe(format: "k == %@", args: [7]) { $0.k == 7 },
            Probe(format: "k == %@", args: [7.0]) { $0.k == 7 },
            Probe(format: "k IN %@", args: [[3, 9, 200, 9]]) { [3, 9].contains($0.k ?? -1) },
            Probe(format: "k > %@", args: [40]) { ($0.k ?? -1) > 40 },
            Probe(format: "k >= %@", args: [40]) { ($0.k ?? -1) >= 40 },
            Probe(format: "k < %@", args: [5]) { $0.k.map { $0 < 5 } ?? false },
            Probe(format: "k <= %@", args: [4.5]) { $0.k.map { Double($0) <= 4.5 } ?? false },
            Probe(format: "%@ < k", args: [45]) { ($0.k ?? -1) > 45 },
            Probe(format: "k BETWEEN %@", args: [[10, 12]]) { (10...12).contains($0.k ?? -1) },
            Probe(format: "k BETWEEN %@", args: [[12, 10]]) { _ in false },
            Probe(format: "k >= %@ AND k < %@", args: [10, 13]) { (10..<13).contains($0.k ?? -1) },
            Probe(format: "k > %@ AND x < %@", args: [30, 0]) { ($0.k ?? -1) > 30 && ($0.x ?? 0) < 0 },
            Probe(format: "x == %@", args: [2]) { $0.x == 2 },
            Probe(format: "x > %@", args: [2.25]) { ($0.x ?? -.infinity) > 2.25 },
            Probe(format: "title BEGINSWITH %@", args: ["ab"]) { $0.title?.hasPrefix("ab") ?? false },
            Probe(format: "title BEGINSWITH %@", args: ["caf"]) { $0.title?.hasPrefix("caf") ?? false },
            Probe(format: "title BEGINSWITH %@", args: [String(repeating: "p", count: 205)]) {
                $0.title?.hasPrefix(String(repeating: "p", count: 205)) ?? false
            },
            Probe(format: "title >= %@", args: ["m"]) { $0.title.map { $0 >= "m" } ?? false },
            Probe(format: "title < %@", args: ["b"]) { $0.title.map { $0 < "b" } ?? false },
            Probe(format: "title > %@", args: ["caf\u{E9}"]) { $0.title.map { $0 > "caf\u{E9}" } ?? false },
            Probe(format: "title <= %@", args: ["e\u{301}te\u{301}"]) {
                $0.title.map { $0 <= "\u{E9}t\u{E9}" } ?? false
            },
            Probe(format: "owner == %@", args: [target]) { $0.owner == "target3" && $0.zone == 0 },
            Probe(format: "owner IN %@", args: [["target1", "target2"]]) {
                ["target1", "target2"].contains($0.owner ?? "")
            },
            Probe(format: "day > %@", args: [day20]) { ($0.day ?? .distantPast) > day20 },
            Probe(format: "day BETWEEN %@", args: [[day10, day20]]) {
                ($0.day ?? .distantPast) >= day10 && ($0.day ?? .distantFuture) <= day20
            },
            Probe(format: "creationDate > %@", args: [Date.distantPast]) { _ in true },
            Probe(format: "k == %@ AND title BEGINSWITH %@", args: [7, "a"]) {
                $0.k == 7 && ($0.title?.hasPrefix("a") ?? false)
            },
            Probe(format: "title == %@", args: ["ALPHA"]) { $0.title.map { equal($0, "ALPHA") } ?? false },
            Probe(format: "title == %@", args: ["cafe\u{301}"]) { $0.title.map { equal($0, "caf\u{E9}") } ?? false },
            Probe(format: "title == %@", args: [""]) { $0.title == "" },
            Probe(format: "title == %@", args: ["\u{391}\u{399}"]) {
                $0.title.map { equal($0, "\u{391}\u{399}") } ?? false
            },
            Probe(format: "title IN %@", args: [["\u{391}\u{399}", "beta"]]) {
                $0.title.map { t in ["\u{391}\u{399}", "beta"].contains { equal(t, $0) } } ?? false
            },
            Probe(format: "title == %@", args: ["\u{391}\u{38A}"]) {
                $0.title.map { equal($0, "\u{391}\u{38A}") } ?? false
            },
            Probe(format: "tags CONTAINS %@", args: ["\u{3B1}\u{399}"]) {
                $0.tags?.contains { equal($0, "\u{3B1}\u{399}") } ?? false
            },
            Probe(format: "title == %@", args: [String(repeating: "P", count: 210) + "A"]) {
                $0.title.map { equal($0, String(repeating: "p", count: 210) + "a") } ?? false
            },
            Probe(format: "title IN %@", args: [["beta", "MANGO", "zz"]]) {
                $0.title.map { t in ["beta", "MANGO", "zz"].contains { equal(t, $0) } } ?? false
            },
            Probe(format: "tags CONTAINS %@", args: ["RED"]) { $0.tags?.contains { equal($0, "RED") } ?? false },
            Probe(format: "%@ IN tags", args: ["gr\u{FC}n"]) { $0.tags?.contains { equal($0, "gr\u{FC}n") } ?? false },
            Probe(format: "tags CONTAINS %@", args: [["blue", "red"]]) { m in
                ["blue", "red"].allSatisfy { c in m.tags?.contains { equal($0, c) } ?? false }
            },
            Probe(format: "nums CONTAINS %@", args: [3]) { $0.nums?.contains(3) ?? false },
            Probe(format: "k > %@ AND title == %@", args: [10, "mango"]) {
                ($0.k ?? -1) > 10 && ($0.title.map { equal($0, "mango") } ?? false)
            },
            Probe(format: "self CONTAINS %@", args: ["alpha"]) { tokens($0).contains("alpha") },
            Probe(format: "self CONTAINS %@", args: ["CAFE"]) { tokens($0).contains("cafe") },
            Probe(format: "self CONTAINS %@", args: ["smile"]) { tokens($0).contains("smile") },
            Probe(format: "self CONTAINS %@", args: ["alpha RED"]) { !tokens($0).isDisjoint(with: ["alpha", "red"]) },
            Probe(format: "self CONTAINS %@ AND self CONTAINS %@", args: ["red", "blue"]) {
                tokens($0).isSuperset(of: ["red", "blue"])
            },
            Probe(format: "self CONTAINS %@ AND k > %@", args: ["green", 20]) {
                tokens($0).contains("green") && ($0.k ?? -1) > 20
            },
            Probe(format: "k != %@", args: [7]) { $0.k != nil && $0.k != 7 },
        ]
    }

    static let indexedOperatorsMatchTheOracle = ConformanceCase(
        "queries.indexedOperatorsMatchTheOracle", invariants: [21, 22, 23],
        "Every operator an index can answer (==, IN, <, <=, >, >=, BETWEEN, BEGINSWITH, reference equality, dates, AND of several) returns exactly the records a Swift oracle picks from random data, across pages, and in sort order when sorted by the indexed field."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zones = try Ops.createZones(db, ["P0", "P1"], in: context)
        let seed: UInt64 = 0x5EED_0019
        let models = models(seed: seed, count: 240)
        context.step("save 240 random records (seed \(seed)) in zones P0 and P1")
        _ = try Ops.saveAll(db, models.map { record($0, zones: zones) }, in: context)
        for probe in probes(zones: zones) {
            let expected = models.filter(probe.holds).map(\.name).sorted()
            for limit in [0, 7] {
                context.step("\(probe.format) \(probe.args), unsorted, resultsLimit \(limit)")
                let query = CKQuery(
                    recordType: "Planned", predicate: NSPredicate(format: probe.format, argumentArray: probe.args))
                let all = try Reads.allPages(db, query, limit: limit, in: context).flatMap { $0 }
                let names = all.map(\.recordID.recordName)
                try context.expectEqual(Set(names).count, names.count, "no record twice: \(names)")
                try context.expectEqual(names.sorted(), expected, "the oracle's matches")
            }
            guard probe.format.hasPrefix("k ") || probe.format.hasPrefix("%@ < k") else { continue }
            for ascending in [true, false] {
                context.step(
                    "\(probe.format) \(probe.args), sorted by k \(ascending ? "ascending" : "descending"), pages of 5")
                let query = CKQuery(
                    recordType: "Planned", predicate: NSPredicate(format: probe.format, argumentArray: probe.args))
                query.sortDescriptors = [NSSortDescriptor(key: "k", ascending: ascending)]
                let all = try Reads.allPages(db, query, limit: 5, in: context).flatMap { $0 }
                let order = models.filter(probe.holds).sorted { a, b in
                    let (ka, kb) = (a.k ?? Int.min, b.k ?? Int.min)
                    if ka != kb { return ascending ? ka < kb : ka > kb }
                    return (a.zone, a.name) < (b.zone, b.name)
                }
                try context.expectEqual(all.map(\.recordID.recordName), order.map(\.name), "the oracle's order")
            }
        }
    }

    static let indexedPagesWithWritesBetween = ConformanceCase(
        "queries.indexedPagesWithWritesBetween", invariants: [22, 23, 32],
        "Paging an indexed query while records are inserted, changed and deleted between pages returns every record that matched throughout and was not touched, exactly once."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zones = try Ops.createZones(db, ["W0", "W1"], in: context)
        let models = models(seed: 0x5EED_0020, count: 160)
        context.step("save 160 random records")
        _ = try Ops.saveAll(db, models.map { record($0, zones: zones) }, in: context)
        let touched = Set(models.indices.filter { $0 % 9 == 0 }.map { models[$0].name })
        var round = 0  // across both queries: each round inserts a record of its own name
        for (format, args, sorted) in [("k >= %@", [20] as [Any], false), ("k BETWEEN %@", [[5, 35]] as [Any], true)] {
            context.step("\(format) \(args) \(sorted ? "sorted by k" : "unsorted"), pages of 6, writes between pages")
            let query = CKQuery(recordType: "Planned", predicate: NSPredicate(format: format, argumentArray: args))
            if sorted { query.sortDescriptors = [NSSortDescriptor(key: "k", ascending: true)] }
            var page = Ops.query(db, query, limit: 6)
            var seen: [String] = []
            while true {
                if let error = page.error {
                    throw context.failure(expected: "the page succeeds", actual: Reads.describe(error))
                }
                seen += page.records.map(\.recordID.recordName)
                guard let cursor = page.cursor else { break }
                round += 1
                try churn(db, models: models, touched: touched, round: round, zones: zones, in: context)
                page = Ops.query(db, cursor: cursor, limit: 6)
            }
            // A record changed between pages may be met again at its new value, as in any
            // keyset walk of an index (decision 0019.3); an untouched one never.
            let untouchedSeen = seen.filter { !touched.contains($0) }
            try context.expectEqual(
                Set(untouchedSeen).count, untouchedSeen.count, "no untouched record twice: \(untouchedSeen)")
            let lower = format == "k >= %@" ? 20 : 5
            let upper = format == "k >= %@" ? Int.max : 35
            let stable = models.filter { !touched.contains($0.name) && ($0.k ?? -1) >= lower && ($0.k ?? -1) <= upper }
            let missing = Set(stable.map(\.name)).subtracting(seen)
            try context.expect(
                missing.isEmpty, "every untouched match is returned", actual: "missing \(missing.sorted())")
        }
    }

    /// Between two pages: moves some touched records' `k`, deletes one, inserts a new match.
    private static func churn(
        _ db: CKDatabase, models: [Model], touched: Set<String>, round: Int, zones: [CKRecordZone.ID],
        in context: ConformanceContext
    ) throws {
        let victims = models.filter { touched.contains($0.name) }
        guard !victims.isEmpty else { return }
        var changed = victims[round % victims.count]
        changed.k = ((changed.k ?? 0) + 17) % 50
        var inserted = victims[(round * 7) % victims.count]
        inserted.name = "new\(round)"
        inserted.k = 25
        let deleted = victims[(round * 3 + 1) % victims.count]
        let changedID = CKRecord.ID(recordName: changed.name, zoneID: zones[changed.zone])
        var saves = [record(inserted, zones: zones)]
        if case .success(let current)? = Reads.fetch(db, [changedID]).results[changedID] {
            current["k"] = changed.k
            saves.append(current)
        }
        _ = try Ops.saveAll(db, saves, in: context)
        _ = Ops.modify(db, delete: [CKRecord.ID(recordName: deleted.name, zoneID: zones[deleted.zone])])
    }
}
