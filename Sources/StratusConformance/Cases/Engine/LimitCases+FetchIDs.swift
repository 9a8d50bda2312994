import Foundation
import Stratus

extension LimitCases {
    static let fetchIDs = ConformanceCase(
        "limits.fetchIDs", invariants: [53],
        "CKFetchRecordsOperation of 400 record IDs across two zones runs (the two records that exist are fetched, the others are unknownItem); one of 401 IDs fails as a whole with limitExceeded naming the limit of 400 and delivers no record, on a remote container too, where the IDs go to the server one zone at a time."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zones = try Ops.createZones(db, ["A", "B"], in: context)
        context.step("save one record in each zone")
        _ = try Ops.saveAll(db, zones.map { makeRecord("r", zone: $0, ["v": "x"]) }, in: context)
        let ids = zones.flatMap { zone in
            (0..<201).map { CKRecord.ID(recordName: $0 == 0 ? "r" : "m\($0)", zoneID: zone) }
        }

        context.step("fetch 400 IDs, 200 in each zone")
        let atLimit = fetch(db, Array(ids.prefix(200)) + Array(ids[201..<401]))
        try context.expect(atLimit.error == nil, "a fetch of 400 IDs runs", actual: Reads.describe(atLimit.error))
        try context.expectEqual(atLimit.found.sorted(), ["r", "r"], "the records found")
        try context.expectEqual(atLimit.results, 400, "per-record results")

        context.step("fetch 401 IDs, 201 in zone A and 200 in zone B")
        let over = fetch(db, Array(ids.prefix(401)))
        try context.expectEqual(ckCode(over.error), .limitExceeded, "the error code of the fetch of 401 IDs")
        let message = Reads.describe(over.error)
        try context.expect(message.contains("(400)"), "the error names the limit of 400", actual: message)
        try context.expectEqual(over.results, 0, "per-record results of the refused fetch")
    }

    /// One `CKFetchRecordsOperation` of `ids`: the names of the records found, the number of
    /// per-record results, and the final error.
    private static func fetch(_ db: CKDatabase, _ ids: [CKRecord.ID]) -> (
        found: [String], results: Int, error: (any Error)?
    ) {
        let op = CKFetchRecordsOperation(recordIDs: ids)
        let items = Collector<String?>()
        let final = Collector<(any Error)?>()
        op.perRecordResultBlock = { _, result in items.append((try? result.get())?.recordID.recordName) }
        op.fetchRecordsResultBlock = { result in
            if case .failure(let error) = result { final.append(error) } else { final.append(nil) }
        }
        Ops.run(op, on: db)
        return (items.values.compactMap { $0 }, items.values.count, final.values.first ?? nil)
    }
}
