import Foundation
import Stratus

/// The limits the engine puts on one request or one database, reached through the CloudKit API
/// so that every backend, and a remote container through stratusd, is held to them: the values
/// and the constant bytes of a query's predicate, a query's sort descriptors, a `desiredKeys`
/// list (decision 0005), the bytes of one batch of zone changes and of one query page, and a
/// database's subscriptions.
///
/// Each case checks that the limit itself is accepted and that one past it fails with
/// `limitExceeded`, with a message naming the limit, delivering and storing nothing. The
/// limits are the engine's constants: `QueryPredicate.maximumValues`,
/// `QueryPredicate.maximumConstantBytes`, `Validation.maximumSortDescriptors`,
/// `Validation.maximumDesiredKeys`, `DatabaseContext.maximumChangesBatchBytes`,
/// `DatabaseContext.maximumQueryPageBytes` and `DatabaseContext.maximumSubscriptions`.
enum LimitCases {
    static var all: [ConformanceCase] {
        [
            queryValues, queryConstantBytes, sortDescriptors, desiredKeys, changesBatchBytes, queryPageBytes,
            fetchBytes, fetchIDs,
            subscriptions,
        ]
    }

    static let queryValues = ConformanceCase(
        "limits.queryValues",
        "A query whose predicate holds 250 values (v IN a list) runs and matches the first and the last of them; one of 251 values fails with limitExceeded naming the limit of 250 and delivers no record."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["L"], in: context)[0]
        let limit = QueryPredicate.maximumValues
        let words = (0...limit).map { "w\($0)" }
        context.step("save records whose v is the 1st, the \(limit)th and the \(limit + 1)st value of the list")
        _ = try Ops.saveAll(
            db,
            [
                makeRecord("first", zone: zone, ["v": words[0]]),
                makeRecord("last", zone: zone, ["v": words[limit - 1]]),
                makeRecord("past", zone: zone, ["v": words[limit]]),
            ], in: context)

        context.step("query v IN a list of \(limit) values")
        let atLimit = Ops.query(db, membership(Array(words.prefix(limit))), zoneID: zone)
        try context.expect(
            atLimit.error == nil, "a query of \(limit) values runs", actual: Reads.describe(atLimit.error))
        try context.expectEqual(Reads.names(atLimit.records), ["first", "last"], "records matching \(limit) values")

        context.step("query v IN a list of \(limit + 1) values")
        let over = Ops.query(db, membership(words), zoneID: zone)
        try expectLimitExceeded(
            over.error, mentioning: "limit of values: \(limit)", "the query of \(limit + 1) values", in: context)
        try context.expectEqual(Reads.names(over.records), [], "records delivered by the refused query")
    }

    static let queryConstantBytes = ConformanceCase(
        "limits.queryConstantBytes",
        "A query comparing a field with a string of 65,536 bytes runs and matches only the record holding that string (not one differing in its last byte); a string of 65,537 bytes fails with limitExceeded naming the limit."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["L"], in: context)[0]
        let limit = QueryPredicate.maximumConstantBytes
        let stem = String(repeating: "a", count: limit - 1)
        context.step("save two records whose \(limit)-byte names differ only in their last byte")
        _ = try Ops.saveAll(
            db, [makeRecord("z", zone: zone, ["name": stem + "z"]), makeRecord("y", zone: zone, ["name": stem + "y"])],
            in: context)

        context.step("query name == a string of \(limit) bytes")
        let atLimit = Ops.query(db, nameEquals(stem + "z"), zoneID: zone)
        try context.expect(
            atLimit.error == nil, "a query of a \(limit)-byte string runs", actual: Reads.describe(atLimit.error))
        try context.expectEqual(Reads.names(atLimit.records), ["z"], "records matching the \(limit)-byte string")

        context.step("query name == a string of \(limit + 1) bytes")
        let over = Ops.query(db, nameEquals(stem + "zz"), zoneID: zone)
        try expectLimitExceeded(
            over.error, mentioning: "the limit is \(limit)", "the query of a \(limit + 1)-byte string", in: context)
        try context.expectEqual(Reads.names(over.records), [], "records delivered by the refused query")
    }

    static let sortDescriptors = ConformanceCase(
        "limits.sortDescriptors", invariants: [21],
        "A query with 8 sort descriptors runs and orders by all of them (the 1st first, the 8th breaking the ties of the first 7); one with 9 fails with limitExceeded naming the limit and delivers no record."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["L"], in: context)[0]
        let limit = Validation.maximumSortDescriptors
        context.step("save d, first by s0, and a, b, c, tied on s0…s\(limit - 2) and apart on s\(limit - 1)")
        _ = try Ops.saveAll(
            db,
            [
                makeRecord("a", zone: zone, sortFields(first: 0, last: 1)),
                makeRecord("b", zone: zone, sortFields(first: 0, last: 3)),
                makeRecord("c", zone: zone, sortFields(first: 0, last: 2)),
                makeRecord("d", zone: zone, sortFields(first: -1, last: 0)),
            ], in: context)

        context.step("sort by s0…s\(limit - 2) ascending, then s\(limit - 1) descending")
        let sorted = Ops.query(db, sortedBy(limit), zoneID: zone)
        try context.expect(
            sorted.error == nil, "a query of \(limit) sort descriptors runs", actual: Reads.describe(sorted.error))
        try context.expectEqual(
            sorted.records.map(\.recordID.recordName), ["d", "b", "c", "a"], "order by \(limit) sort descriptors")

        context.step("sort by \(limit + 1) descriptors")
        let over = Ops.query(db, sortedBy(limit + 1), zoneID: zone)
        try expectLimitExceeded(
            over.error, mentioning: "the limit is \(limit)", "the query of \(limit + 1) sort descriptors", in: context)
        try context.expectEqual(Reads.names(over.records), [], "records delivered by the refused query")
    }

    static let desiredKeys = ConformanceCase(
        "limits.desiredKeys", invariants: [25],
        "A fetch by ID, a query and a zone-changes fetch listing 1,000 desiredKeys return exactly the listed fields; listing 1,001 fails each of them with limitExceeded naming the limit, delivering no record."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["L"], in: context)[0]
        let limit = Validation.maximumDesiredKeys
        let keys = (0...limit).map { "k\($0)" }
        context.step("save a record with fields k0, k\(limit - 1), k\(limit) and other")
        let record = makeRecord("r", zone: zone, ["k0": 0, "k\(limit - 1)": 1, "k\(limit)": 2, "other": 3])
        _ = try Ops.saveAll(db, [record], in: context)

        context.step("fetch by ID, query and fetch zone changes with desiredKeys k0…k\(limit - 1)")
        for (path, read) in keyedReads(db, record.recordID, desiredKeys: Array(keys.prefix(limit))) {
            try context.expect(read.error == nil, "the \(path) succeeds", actual: Reads.describe(read.error))
            try context.expectEqual(
                read.records.map { $0.allKeys().sorted() }, [["k0", "k\(limit - 1)"]],
                "fields of the record of the \(path) with \(limit) desiredKeys")
        }

        context.step("the same with desiredKeys k0…k\(limit)")
        for (path, read) in keyedReads(db, record.recordID, desiredKeys: keys) {
            try expectLimitExceeded(
                read.error, mentioning: "the limit is \(limit)", "the \(path) with \(limit + 1) desiredKeys",
                in: context)
            try context.expectEqual(read.records.count, 0, "records delivered by the refused \(path)")
        }
    }

    static let changesBatchBytes = ConformanceCase(
        "limits.changesBatchBytes", invariants: [2, 7, 8, 10],
        "Zone changes of 30 records of 900 KB come in batches of at most 16 MiB of stored records, with moreComing until the last; every record comes once, whole and in save order, and nothing follows the final token."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Large"], in: context)[0]
        context.step("save \(largeCount) records with a \(largeBytes)-byte BYTES field, one per request")
        for n in 0..<largeCount {
            _ = try Ops.saveAll(db, [largeRecord(n, zone: zone)], in: context)
        }

        context.step("walk the changes from a nil token with fetchAllChanges = false and no resultsLimit")
        let (batches, token) = try walkChanges(db, zone, in: context)
        let budget = DatabaseContext.maximumChangesBatchBytes
        try context.expect(
            batches.count > 1, "more than one batch (the records hold more than \(budget) bytes)",
            actual: "\(batches.count) batch of \(batches.first?.count ?? 0) records")
        for (index, batch) in batches.enumerated() {
            try context.expect(
                (1...budget / largeBytes).contains(batch.count),
                "batch \(index + 1) holds 1 to \(budget / largeBytes) records of \(largeBytes) bytes",
                actual: "\(batch.count) records")
        }
        let records = batches.flatMap { $0 }
        try context.expectEqual(
            records.map(\.recordID.recordName), (0..<largeCount).map { "b\($0)" }, "records of the walk, in order")
        for (n, record) in records.enumerated() {
            let data = record["data"] as? Data
            try context.expect(
                data == largeData(n), "record b\(n) carries its \(largeBytes) bytes",
                actual: data.map { "\($0.count) bytes, starting with \($0.first ?? 0)" } ?? "no data field")
        }

        context.step("fetch from the final token")
        let after = Ops.zoneChanges(db, zone, since: token)
        try context.expect(
            after.zoneError == nil, "the fetch from the final token succeeds", actual: Reads.describe(after.zoneError))
        try context.expectEqual(after.changed.count + after.deleted.count, 0, "changes after the final token")
        try context.expectEqual(after.moreComing, false, "moreComing after the final token")
    }

    static let subscriptions = ConformanceCase(
        "limits.subscriptions",
        "A database holds at most 200 subscriptions: the 200th is saved and the 201st, in the same request, fails with limitExceeded naming the limit and is not stored; replacing a stored one still succeeds, and fetching all lists exactly the 200."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let limit = DatabaseContext.maximumSubscriptions
        context.step("save \(limit - 1) database subscriptions in one request")
        let filled = saveSubscriptions(db, (0..<limit - 1).map { subscription($0) })
        let saved = filled.results.values.filter { (try? $0.get()) != nil }.count
        try context.expectEqual(saved, limit - 1, "subscriptions saved (final error: \(Reads.describe(filled.error)))")

        context.step("save s\(limit - 1) (the \(limit)th) and s\(limit) (the \(limit + 1)st) in one request")
        let over = saveSubscriptions(db, [subscription(limit - 1), subscription(limit)])
        try context.expect(
            (try? over.results["s\(limit - 1)"]?.get()) != nil, "the \(limit)th subscription is saved",
            actual: Reads.describe(over.results["s\(limit - 1)"]))
        try expectLimitExceeded(
            errorOf(over.results["s\(limit)"]), mentioning: "the limit is \(limit)",
            "the save of the \(limit + 1)st subscription", in: context)

        context.step("replace s0 at the limit: not a new subscription")
        let replaced = saveSubscriptions(db, [subscription(0)])
        try context.expect(
            (try? replaced.results["s0"]?.get()) != nil, "replacing s0 succeeds",
            actual: Reads.describe(replaced.results["s0"]))

        context.step("fetch every subscription")
        let listed = allSubscriptionIDs(db)
        try context.expect(listed.error == nil, "the fetch succeeds", actual: Reads.describe(listed.error))
        try context.expectEqual(
            listed.ids.sorted(), (0..<limit).map { "s\($0)" }.sorted(), "subscriptions listed by a fetch of all")
    }

    // MARK: Helpers

    /// Records of type `Item` whose `v` is one of `values`.
    private static func membership(_ values: [String]) -> CKQuery {
        CKQuery(recordType: "Item", predicate: NSPredicate(format: "v IN %@", argumentArray: [values]))
    }

    /// Records of type `Item` whose `name` equals `value`.
    private static func nameEquals(_ value: String) -> CKQuery {
        CKQuery(recordType: "Item", predicate: NSPredicate(format: "name == %@", argumentArray: [value]))
    }

    /// Every record of type `Item`, sorted by `s0`…`s(count - 1)`: ascending, but for
    /// `s(maximumSortDescriptors - 1)`, descending.
    private static func sortedBy(_ count: Int) -> CKQuery {
        let query = CKQuery(recordType: "Item", predicate: NSPredicate(value: true))
        query.sortDescriptors = (0..<count).map {
            NSSortDescriptor(key: "s\($0)", ascending: $0 != Validation.maximumSortDescriptors - 1)
        }
        return query
    }

    /// Fields `s0`…`s(maximumSortDescriptors - 1)`: `first` in `s0`, `last` in the last, 0 between.
    private static func sortFields(first: Int, last: Int) -> [String: any CKRecordValue] {
        let count = Validation.maximumSortDescriptors
        var fields: [String: any CKRecordValue] = [:]
        for k in 0..<count { fields["s\(k)"] = k == 0 ? first : (k == count - 1 ? last : 0) }
        return fields
    }

    /// What one read with `desiredKeys` delivered: its records and its error.
    private typealias KeyedRead = (records: [CKRecord], error: (any Error)?)

    /// Reads the record `id` with `desiredKeys` by ID, by a query of its zone and by a nil-token
    /// fetch of its zone's changes (the zone's only record); each path's name and outcome.
    private static func keyedReads(_ db: CKDatabase, _ id: CKRecord.ID, desiredKeys: [String])
        -> [(String, KeyedRead)]
    {
        let fetched = Reads.fetch(db, [id], desiredKeys: desiredKeys)
        let query = CKQuery(recordType: "Item", predicate: NSPredicate(value: true))
        let queried = Ops.query(db, query, zoneID: id.zoneID, desiredKeys: desiredKeys)
        let changes = Ops.zoneChanges(db, id.zoneID, since: nil, desiredKeys: desiredKeys)
        return [
            ("fetch by ID", (fetched.results.values.compactMap { try? $0.get() }, fetched.error)),
            ("query", (queried.records, queried.error)),
            ("zone-changes fetch", (changes.changed, changes.zoneError ?? changes.error)),
        ]
    }

    /// Fails the case unless `error` is `limitExceeded` and its message holds `mention`.
    private static func expectLimitExceeded(
        _ error: (any Error)?, mentioning mention: String, _ what: String, in context: ConformanceContext
    ) throws {
        try context.expectEqual(ckCode(error), .limitExceeded, "the error code of \(what)")
        let message = Reads.describe(error)
        try context.expect(message.contains(mention), "the error of \(what) says '\(mention)'", actual: message)
    }

    /// The error of a per-item result; `nil` for a success or no result.
    private static func errorOf<T>(_ result: Result<T, any Error>?) -> (any Error)? {
        guard case .failure(let error)? = result else { return nil }
        return error
    }

    /// How many records ``changesBatchBytes`` saves, and the bytes of each one's field.
    private static let largeCount = 30
    static let largeBytes = 900_000

    /// The content of record `b<n>`'s field: `largeBytes` bytes, each `n`.
    static func largeData(_ n: Int) -> Data {
        Data(repeating: UInt8(truncatingIfNeeded: n), count: largeBytes)
    }

    /// Record `b<n>` of type `Blob`, with ``largeData(_:)`` in its BYTES field `data`.
    static func largeRecord(_ n: Int, zone: CKRecordZone.ID) -> CKRecord {
        makeRecord("b\(n)", type: "Blob", zone: zone, ["data": largeData(n)])
    }

    /// The batches of a walk of `zone`'s changes from a nil token, one fetch per batch
    /// (`fetchAllChanges` false, no `resultsLimit`), following `moreComing`; and the last token.
    private static func walkChanges(_ db: CKDatabase, _ zone: CKRecordZone.ID, in context: ConformanceContext) throws
        -> (batches: [[CKRecord]], token: CKServerChangeToken?)
    {
        var batches: [[CKRecord]] = []
        var token: CKServerChangeToken?
        while true {
            let batch = Ops.zoneChanges(db, zone, since: token, fetchAll: false)
            if let error = batch.zoneError ?? batch.error {
                throw context.failure(
                    expected: "batch \(batches.count + 1) of the zone's changes", actual: Reads.describe(error))
            }
            batches.append(batch.changed)
            token = batch.token
            guard batch.moreComing else { return (batches, token) }
            try context.expect(
                batches.count < largeCount, "the walk ends within \(largeCount) batches",
                actual: "batch \(batches.count) still says moreComing")
        }
    }

    /// Database subscription `s<n>`.
    private static func subscription(_ n: Int) -> CKSubscription {
        CKDatabaseSubscription(subscriptionID: "s\(n)")
    }

    /// Saves `subscriptions` through `CKModifySubscriptionsOperation`: each one's result by ID,
    /// and the operation's final error.
    private static func saveSubscriptions(_ db: CKDatabase, _ subscriptions: [CKSubscription])
        -> (results: [CKSubscription.ID: Result<CKSubscription, any Error>], error: (any Error)?)
    {
        let op = CKModifySubscriptionsOperation(subscriptionsToSave: subscriptions)
        let saves = Collector<(CKSubscription.ID, Result<CKSubscription, any Error>)>()
        let final = Collector<(any Error)?>()
        op.perSubscriptionSaveBlock = { saves.append(($0, $1)) }
        op.modifySubscriptionsResultBlock = { result in
            if case .failure(let error) = result { final.append(error) } else { final.append(nil) }
        }
        Ops.run(op, on: db)
        var results: [CKSubscription.ID: Result<CKSubscription, any Error>] = [:]
        for (id, result) in saves.values { results[id] = result }
        return (results, final.values.first ?? nil)
    }

    /// The IDs of every subscription `fetchAllSubscriptionsOperation()` delivers, and its final error.
    private static func allSubscriptionIDs(_ db: CKDatabase) -> (ids: [CKSubscription.ID], error: (any Error)?) {
        let op = CKFetchSubscriptionsOperation.fetchAllSubscriptionsOperation()
        let ids = Collector<CKSubscription.ID>()
        let final = Collector<(any Error)?>()
        op.perSubscriptionResultBlock = { id, result in if (try? result.get()) != nil { ids.append(id) } }
        op.fetchSubscriptionsResultBlock = { result in
            if case .failure(let error) = result { final.append(error) } else { final.append(nil) }
        }
        Ops.run(op, on: db)
        return (ids.values, final.values.first ?? nil)
    }
}
