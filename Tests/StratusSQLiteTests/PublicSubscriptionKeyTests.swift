import Foundation
import StratusBackend
import StratusConformance
import StratusTestSupport
import Testing

@testable import Stratus

/// Public query subscriptions found by the value their predicate requires (decision 0014.8), on
/// every backend: a public commit judges only the keyed subscriptions its records' values name,
/// and fires exactly what judging every subscription would.
@Suite struct PublicSubscriptionKeyTests {
    typealias Backend = NamespaceTests.Backend

    static let container = "iCloud.com.example.app"
    static let everyone = Namespace(container: container, environment: .development)
    static let allChanges: CKQuerySubscription.Options = [
        .firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion,
    ]

    static func user(_ name: String) -> Namespace {
        Namespace(container: container, environment: .development, owner: name)
    }

    func withEngine(_ backend: Backend, _ body: (Engine) async throws -> Void) async throws {
        let storage = try await backend.makeStorage()
        defer { try? storage.destroy() }
        try await body(try Engine(backend: try storage.open()))
    }

    func subscribe(
        _ engine: Engine, _ owner: String, _ predicate: NSPredicate, id: String = "mine",
        options: CKQuerySubscription.Options = allChanges
    ) throws {
        let subscription = CKQuerySubscription(
            recordType: "Item", predicate: predicate, subscriptionID: id, options: options)
        let database = try engine.database(namespace: Self.user(owner), scope: .public)
        _ = try database.modifySubscriptions(saving: [subscription], deleting: []).saved[0].1.get()
    }

    func writer(_ engine: Engine) throws -> DatabaseContext {
        try engine.database(
            namespace: Self.everyone, scope: .public, caller: Caller(userRecordName: "_writer", role: .user))
    }

    func modify(_ database: DatabaseContext, save: [CKRecord] = [], delete: [String] = []) throws {
        let outcome = try database.modifyRecords(
            ModifyRequest(
                records: save, deletes: delete.map { CKRecord.ID(recordName: $0) }, policy: .allKeys,
                atomic: false, clientChangeTokenData: nil))
        for result in outcome.saveResults { _ = try result.1.get() }
        for result in outcome.deleteResults { _ = try result.1.get() }
    }

    func item(_ name: String, recipient: String) -> CKRecord {
        let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: name))
        record["recipient"] = recipient
        return record
    }

    /// `subscriptionID:recordName:reason` of every entry in `owner`'s log.
    func log(_ engine: Engine, _ owner: String) throws -> [String] {
        try engine.notificationLog(namespace: Self.user(owner)).entries(after: 0, limit: 1_000).entries.map {
            "\($0.subscriptionID):\($0.recordName ?? ""):\($0.reason)"
        }
    }

    @Test(arguments: Backend.allCases)
    func keyedSubscriptionsFireForTheValueTheyName(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            for n in 0..<6 {
                try subscribe(engine, "_u\(n)", NSPredicate(format: "recipient == %@", "_u\(n)"))
            }
            try subscribe(
                engine, "_u5", NSPredicate(format: "recipient == %@", "_u5"), id: "once",
                options: [.firesOnRecordCreation, .firesOnce])
            let writer = try writer(engine)
            try modify(writer, save: [item("m1", recipient: "_u1")])
            // Moved to another recipient: an update for the new one; the old one no longer matches.
            try modify(writer, save: [item("m1", recipient: "_u2")])
            try modify(writer, delete: ["m1"])
            // String equality ignores case.
            try modify(writer, save: [item("m2", recipient: "_U3")])
            // Several records, several recipients, one commit.
            try modify(writer, save: [item("m3", recipient: "_u4"), item("m4", recipient: "_u0")])
            try modify(writer, save: [item("m5", recipient: "_u5")])
            try modify(writer, save: [item("m6", recipient: "_u5")])

            #expect(try log(engine, "_u0") == ["mine:m4:1"])
            #expect(try log(engine, "_u1") == ["mine:m1:1"])
            #expect(try log(engine, "_u2") == ["mine:m1:2", "mine:m1:3"])
            #expect(try log(engine, "_u3") == ["mine:m2:1"])
            #expect(try log(engine, "_u4") == ["mine:m3:1"])
            #expect(try log(engine, "_u5") == ["mine:m5:1", "once:m5:1", "mine:m6:1"])
            let left = try engine.database(namespace: Self.user("_u5"), scope: .public).fetchSubscriptions(nil)
            #expect(left.map(\.0) == ["mine"], "the firesOnce subscription is gone")
            let onceEntry = writer.keys.keyedPublicSubscription(
                "Item",
                try #require(PublicSubscriptionKey(NSPredicate(format: "recipient == '_u5'").stratusExpression!)),
                user: try engine.database(namespace: Self.user("_u5"), scope: .public).containerNumber, id: "once")
            #expect(try engine.read { try $0.get(onceEntry) } == nil, "and its index entry with it")
        }
    }

    /// Users `k…` subscribe with `field == c` (keyed), users `u…` with `field IN {c}` (not keyed,
    /// the same records by CloudKit's equality): after random commits each pair's logs agree.
    @Test(arguments: Backend.allCases)
    func keyedAndUnkeyedSubscriptionsAgree(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let constants = KeyedValues.constants
            let writer = try writer(engine)
            for (n, (field, options, constant)) in constants.enumerated() {
                let keyed = NSPredicate(format: "%K ==\(options) %@", field, constant)
                let unkeyed = NSPredicate(format: "%K IN\(options) %@", field, [constant])
                try subscribe(engine, "_k\(n)", keyed)
                try subscribe(engine, "_u\(n)", unkeyed)
                // The first is found by its value, the second by its type only.
                let keyedExpression = try #require(keyed.stratusExpression)
                let unkeyedExpression = try #require(unkeyed.stratusExpression)
                let key = try #require(PublicSubscriptionKey(keyedExpression), "\(keyed)")
                #expect(PublicSubscriptionKey(unkeyedExpression) == nil)
                let user = try engine.database(namespace: Self.user("_k\(n)"), scope: .public).containerNumber
                let entry = writer.keys.keyedPublicSubscription("Item", key, user: user, id: "mine")
                #expect(try engine.read { try $0.get(entry) } != nil)
            }
            var random = SeededGenerator(seed: 20_261_127)
            var existing: [String] = []
            for commit in 0..<80 {
                var saves: [CKRecord] = []
                var deletes: [String] = []
                for slot in 0..<Int.random(in: 1...3, using: &random) {
                    let deletable = existing.filter { name in !saves.contains { $0.recordID.recordName == name } }
                    if !deletable.isEmpty && Int.random(in: 0..<4, using: &random) == 0 {
                        let name = deletable.randomElement(using: &random)!
                        existing.removeAll { $0 == name }
                        deletes.append(name)
                        continue
                    }
                    let name =
                        !existing.isEmpty && Bool.random(using: &random)
                        ? existing.randomElement(using: &random)! : "r\(commit)-\(slot)"
                    guard !deletes.contains(name), !saves.contains(where: { $0.recordID.recordName == name })
                    else { continue }
                    saves.append(KeyedValues.record(name, using: &random))
                    if !existing.contains(name) { existing.append(name) }
                }
                try modify(writer, save: saves, delete: deletes)
            }
            var fired = 0
            for n in constants.indices {
                let keyed = try log(engine, "_k\(n)")
                #expect(keyed == (try log(engine, "_u\(n)")), "\(constants[n].0) ==\(constants[n].1) \(constants[n].2)")
                fired += keyed.count
            }
            #expect(fired > 100, "the random commits fired \(fired) notifications")
        }
    }

    /// More subscriptions under one value than one read of the index returns.
    @Test(arguments: Backend.allCases)
    func everySubscriptionUnderOneValueFires(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            let users = DatabaseContext.subscriptionPage + 44
            for n in 0..<users { try subscribe(engine, "_u\(n)", NSPredicate(format: "recipient == 'all'")) }
            try modify(try writer(engine), save: [item("m1", recipient: "ALL")])
            for n in 0..<users { #expect(try log(engine, "_u\(n)") == ["mine:m1:1"], "user \(n)") }
        }
    }

    /// A store written before keyed entries holds a keyable subscription in `41`: it fires from
    /// there, once even beside a `42` entry, and saving or deleting it clears both.
    @Test(arguments: Backend.allCases)
    func subscriptionsOfAnOlderStoreFireOnceAndMove(backend: Backend) async throws {
        try await withEngine(backend) { engine in
            try subscribe(engine, "_alice", NSPredicate(format: "recipient == %@", "_alice"))
            let writer = try writer(engine)
            let user = try engine.database(namespace: Self.user("_alice"), scope: .public).containerNumber
            let unkeyed = writer.keys.publicSubscriptionIndex("Item", user: user, id: "mine")
            let key = try #require(
                PublicSubscriptionKey(NSPredicate(format: "recipient == '_alice'").stratusExpression!))
            let keyed = writer.keys.keyedPublicSubscription("Item", key, user: user, id: "mine")
            func entries() throws -> [Bool] {
                try engine.read { txn in [try txn.get(unkeyed) != nil, try txn.get(keyed) != nil] }
            }
            #expect(try entries() == [false, true])
            // The older layout: in `41` only.
            try engine.write { txn in
                try txn.clear(keyed)
                try txn.set(unkeyed, [])
            }
            try modify(writer, save: [item("a1", recipient: "_alice")])
            #expect(try log(engine, "_alice").count == 1)
            // In both: judged once.
            try engine.write { try $0.set(keyed, []) }
            try modify(writer, save: [item("a2", recipient: "_alice")])
            #expect(try log(engine, "_alice") == ["mine:a1:1", "mine:a2:1"])
            // Saved again: keyed only.
            try subscribe(engine, "_alice", NSPredicate(format: "recipient == %@", "_alice"))
            #expect(try entries() == [false, true])
            try engine.write { try $0.set(unkeyed, []) }
            try engine.database(namespace: Self.user("_alice"), scope: .public).modifySubscriptions(
                saving: [], deleting: ["mine"]
            ).deleted[0].1.get()
            #expect(try entries() == [false, false])
            let marks = writer.keys.publicSubscriptionKeyMarks("Item")
            #expect(try engine.read { try $0.scan(marks, limit: 10) }.isEmpty, "no keyed subscription uses the field")
            try modify(writer, save: [item("a3", recipient: "_alice")])
            #expect(try log(engine, "_alice").count == 2)
        }
    }
}

/// The values of ``PublicSubscriptionKeyTests/keyedAndUnkeyedSubscriptionsAgree(backend:)``:
/// values equal by CloudKit's equality in different forms, and values that share a form but are
/// not equal (a coarse form must cost a judgement, never a notification).
enum KeyedValues {
    static let long = String(repeating: "x", count: 250)
    /// Strings equal in one case or form and not another; a character that folds to two letters
    /// with case alone and one with diacritics (U+1FB3); strings equal in their first 200 bytes.
    static let titles = [
        "Café", "cafe", "CAFE", "Cafe\u{301}", "tea", "\u{1FB3}", "ΑΙ", "αι", "α", "ß", "SS", "ss", "İ", "i",
        long + "a", long + "b",
    ]
    /// Integers and doubles, saved as their own types; integers beyond 2^53.
    static let counts: [@Sendable (CKRecord) -> Void] = [
        { $0["count"] = 0 }, { $0["count"] = 5 }, { $0["count"] = 5.0 }, { $0["count"] = -0.0 },
        { $0["count"] = 7 }, { $0["count"] = 7.5 }, { $0["count"] = 9_007_199_254_740_992 },
        { $0["count"] = 9_007_199_254_740_993 }, { $0["count"] = 9_007_199_254_740_992.0 },
    ]
    static let dates = [Date(timeIntervalSinceReferenceDate: 1_000), Date(timeIntervalSinceReferenceDate: 1_000.5)]
    static let owners = ["alice", "Alice", "bob"]
    static let tags: [[String]] = [["a", "B"], ["b"], ["c", "A"], []]

    /// One subscription per (field, string options, constant): strings in every case and
    /// form, with and without `[d]`; numbers as integers and doubles; dates; references and
    /// record names; list elements; the record's own ID.
    static var constants: [(String, String, any CVarArg)] {
        [
            ("title", "", "Café"), ("title", "", "CAFE"), ("title", "", "tea"), ("title", "", "ΑΙ"),
            ("title", "", "α"), ("title", "", "SS"), ("title", "", "I"), ("title", "", long + "a"),
            ("title", "[d]", "cafe"), ("title", "[cd]", "α"), ("title", "[cd]", "αι"), ("title", "[d]", "ss"),
            ("count", "", 5), ("count", "", 5.0), ("count", "", 0), ("count", "", -0.0), ("count", "", 7.5),
            ("count", "", 9_007_199_254_740_993), ("count", "", 9_007_199_254_740_992.0),
            ("when", "", dates[0] as NSDate), ("when", "", dates[1] as NSDate),
            ("owner", "", CKRecord.Reference(recordID: CKRecord.ID(recordName: "alice"), action: .none)),
            ("owner", "", "alice"), ("owner", "", "ALICE"),
            ("tags", "", "b"), ("tags", "", "A"),
            ("recordID", "", CKRecord.ID(recordName: "r3-0")),
        ]
    }

    static func record(_ name: String, using random: inout SeededGenerator) -> CKRecord {
        let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: name))
        if Int.random(in: 0..<5, using: &random) > 0 { record["title"] = titles.randomElement(using: &random)! }
        if Int.random(in: 0..<5, using: &random) > 0 { counts.randomElement(using: &random)!(record) }
        if Int.random(in: 0..<5, using: &random) > 0 { record["when"] = dates.randomElement(using: &random)! }
        if Int.random(in: 0..<5, using: &random) > 0 {
            record["owner"] = CKRecord.Reference(
                recordID: CKRecord.ID(recordName: owners.randomElement(using: &random)!), action: .none)
        }
        if Int.random(in: 0..<5, using: &random) > 0 { record["tags"] = tags.randomElement(using: &random)! }
        return record
    }
}
