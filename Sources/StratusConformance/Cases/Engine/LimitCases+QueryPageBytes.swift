import Foundation
import Stratus

extension LimitCases {
    /// How many records ``queryPageBytes`` saves: a little more than one page's bytes.
    private static let pageRecordCount = 20

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
