import Foundation
import Stratus

extension LimitCases {
    /// How many records ``queryPageBytes`` and ``fetchBytes`` save: a little more than 16 MiB.
    static let pageRecordCount = 20

    static let queryPageBytes = ConformanceCase(
        "limits.queryPageBytes", invariants: [21, 22, 23],
        "A query of 20 records of 900 KB with resultsLimit 400 comes in pages of at most 16 MiB of fields (the record that crosses it ends the page), sorted or not; every record comes once, whole and in order, and without the large field in desiredKeys one page holds them all."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Large"], in: context)[0]
        context.step(
            "save \(pageRecordCount) records with a \(largeBytes)-byte BYTES field and a number, one per request")
        for n in 0..<pageRecordCount {
            let record = largeRecord(n, zone: zone)
            record["n"] = pageRecordCount - n
            _ = try Ops.saveAll(db, [record], in: context)
        }
        let byName = (0..<pageRecordCount).sorted { "b\($0)" < "b\($1)" }
        let byNumber = Array((0..<pageRecordCount).reversed())
        for (sorts, order) in [([String](), byName), (["n"], byNumber)] {
            let query = CKQuery(recordType: "Blob", predicate: NSPredicate(value: true))
            query.sortDescriptors = sorts.map { NSSortDescriptor(key: $0, ascending: true) }
            context.step("query every Blob sorted by \(sorts), resultsLimit 400, following cursors")
            let pages = try Reads.allPages(db, query, zoneID: zone, limit: 400, maxPages: pageRecordCount, in: context)
            try expectPagesOfBytes(pages, order: order, what: "sorted by \(sorts)", in: context)

            context.step("the same query with desiredKeys [n]")
            let small = try Reads.allPages(
                db, query, zoneID: zone, limit: 400, desiredKeys: ["n"], maxPages: pageRecordCount, in: context)
            try context.expectEqual(
                small.map(\.count), [pageRecordCount], "pages without the large field (sorted by \(sorts))")
        }
    }

    /// Fails the case unless `pages` are more than one, each ending at the record that takes
    /// it past ``DatabaseContext/maximumQueryPageBytes``, and together hold records `b<n>` in
    /// `order`, each with its whole field.
    private static func expectPagesOfBytes(
        _ pages: [[CKRecord]], order: [Int], what: String, in context: ConformanceContext
    ) throws {
        let perPage = DatabaseContext.maximumQueryPageBytes / largeBytes + 1
        try context.expectEqual(
            pages.map(\.count), [perPage, order.count - perPage],
            "pages of \(largeBytes)-byte records, \(what): the one that crosses 16 MiB ends the first")
        let records = pages.flatMap { $0 }
        try context.expectEqual(
            records.map(\.recordID.recordName), order.map { "b\($0)" }, "records of the pages, \(what), in order")
        for (record, n) in zip(records, order) {
            let data = record["data"] as? Data
            try context.expect(
                data == largeData(n), "record b\(n) carries its \(largeBytes) bytes",
                actual: data.map { "\($0.count) bytes, starting with \($0.first ?? 0)" } ?? "no data field")
        }
    }
}

extension LimitCases {
    static let fetchBytes = ConformanceCase(
        "limits.fetchBytes", invariants: [53, 54],
        "CKFetchRecordsOperation of 20 records of 900 KB (more than one request's 16 MiB of fields, which the engine and stratusd refuse with limitExceeded) delivers every record once, whole and in request order, and a missing one as unknownItem: the operation asks again in parts."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Large"], in: context)[0]
        context.step("save \(pageRecordCount) records with a \(largeBytes)-byte BYTES field, one per request")
        for n in 0..<pageRecordCount {
            _ = try Ops.saveAll(db, [largeRecord(n, zone: zone)], in: context)
        }
        let ids = (0..<pageRecordCount).map { CKRecord.ID(recordName: "b\($0)", zoneID: zone) }
        let missing = CKRecord.ID(recordName: "missing", zoneID: zone)

        context.step("fetch all of them and a missing one in one CKFetchRecordsOperation")
        let (results, order, error) = fetchInOrder(db, ids + [missing])
        try context.expect(error == nil, "the operation succeeds", actual: Reads.describe(error))
        try context.expectEqual(order, ids + [missing], "per-record callbacks, once each, in request order")
        for (n, id) in ids.enumerated() {
            let data = (try? results[id]?.get())?["data"] as? Data
            try context.expect(
                data == largeData(n), "record b\(n) carries its \(largeBytes) bytes",
                actual: data.map { "\($0.count) bytes" } ?? Reads.describe(results[id]))
        }
        try context.expectEqual(Reads.errorCode(results[missing]), .unknownItem, "the missing record's error")
    }

    /// Runs one `CKFetchRecordsOperation` of `ids`: each result by ID, the IDs in callback
    /// order, and the operation's final error.
    private static func fetchInOrder(_ db: CKDatabase, _ ids: [CKRecord.ID]) -> (
        [CKRecord.ID: Result<CKRecord, any Error>], [CKRecord.ID], (any Error)?
    ) {
        let op = CKFetchRecordsOperation(recordIDs: ids)
        let items = Collector<(CKRecord.ID, Result<CKRecord, any Error>)>()
        let final = Collector<(any Error)?>()
        op.perRecordResultBlock = { items.append(($0, $1)) }
        op.fetchRecordsResultBlock = { result in
            if case .failure(let error) = result { final.append(error) } else { final.append(nil) }
        }
        Ops.run(op, on: db)
        var results: [CKRecord.ID: Result<CKRecord, any Error>] = [:]
        for (id, result) in items.values { results[id] = result }
        return (results, items.values.map(\.0), final.values.first ?? nil)
    }
}
