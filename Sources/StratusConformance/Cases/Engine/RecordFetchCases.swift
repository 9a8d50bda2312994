import Foundation
import Stratus

/// Fetching records by ID: invariant 53 of `cloudkit-semantics.md` §11 D.
enum RecordFetchCases {
    static var all: [ConformanceCase] { [fetchMissing] }

    static let fetchMissing = ConformanceCase(
        "records.fetchMissing", invariants: [53, 54],
        "Fetching a missing record gives unknownItem, one in a missing zone zoneNotFound, each ID answered once (an ID listed twice too)."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["Z"], in: context)[0]
        _ = try Ops.saveAll(db, [makeRecord("present", zone: zone, ["v": 1])], in: context)
        let present = CKRecord.ID(recordName: "present", zoneID: zone)
        let absent = CKRecord.ID(recordName: "absent", zoneID: zone)
        let noZone = CKRecord.ID(recordName: "present", zoneID: CKRecordZone.ID(zoneName: "Nowhere"))
        context.step("fetch a present, an absent and a zoneless ID, and the present one again")
        let operation = CKFetchRecordsOperation(recordIDs: [present, absent, noZone, present])
        let results = Collector<(CKRecord.ID, Result<CKRecord, any Error>)>()
        let final = Collector<Result<Void, any Error>>()
        operation.perRecordResultBlock = { results.append(($0, $1)) }
        operation.fetchRecordsResultBlock = { final.append($0) }
        Ops.run(operation, on: db)
        try context.expect(final.values.count == 1, "one final callback", actual: "\(final.values.count)")
        if case .failure(let error)? = final.values.first {
            throw context.failure(expected: "the request succeeds", actual: "\(error)")
        }
        let byID = Dictionary(results.values.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
        try context.expectEqual(results.values.count, 3, "per-record results")
        try context.expectEqual(byID.count, 3, "distinct IDs answered")
        try context.expectEqual((try? byID[present]?.get())?["v"] as? Int, 1, "the present record's value")
        if case .failure(let error)? = byID[absent] {
            try context.expectEqual(ckCode(error), .unknownItem, "error for the absent record")
        } else {
            throw context.failure(
                expected: "unknownItem for the absent record", actual: "\(String(describing: byID[absent]))")
        }
        if case .failure(let error)? = byID[noZone] {
            try context.expectEqual(ckCode(error), .zoneNotFound, "error for the record in a missing zone")
        } else {
            throw context.failure(
                expected: "zoneNotFound for the missing zone", actual: "\(String(describing: byID[noZone]))")
        }
    }
}
