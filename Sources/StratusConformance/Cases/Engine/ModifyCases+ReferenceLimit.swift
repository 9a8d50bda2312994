import Foundation
import Stratus

extension ModifyCases {
    static let deleteSelfReferenceLimit = ConformanceCase(
        "modify.deleteSelfReferenceLimit", invariants: [50],
        "At most 750 records refer to one record with deleteSelf: the 751st gets limitExceeded naming both records and is not saved; a referrer that drops its reference in the same request frees a place; keeping a reference is not counted again."
    ) { context in
        let db = try context.container().privateCloudDatabase
        let zone = try Ops.createZones(db, ["M"], in: context)[0]
        let target = CKRecord.ID(recordName: "target", zoneID: zone)
        func referrer(_ n: Int, to: CKRecord.ID? = nil) -> CKRecord {
            makeRecord(
                "r\(n)", zone: zone, ["owner": CKRecord.Reference(recordID: to ?? target, action: .deleteSelf)])
        }
        context.step("save the target and 750 deleteSelf referrers, 375 per request")
        _ = try Ops.saveAll(db, [makeRecord("target", zone: zone), makeRecord("other", zone: zone)], in: context)
        _ = try Ops.saveAll(db, (0..<375).map { referrer($0) }, in: context)
        _ = try Ops.saveAll(db, (375..<750).map { referrer($0) }, in: context)

        context.step("a 751st and a 752nd, not atomically: both refused with limitExceeded")
        let over = Ops.modify(db, save: [referrer(750), referrer(751)], atomic: false)
        for n in [750, 751] {
            let id = CKRecord.ID(recordName: "r\(n)", zoneID: zone)
            try context.expectEqual(
                Reads.errorCode(over.saved[id]), .limitExceeded, "error of the save of r\(n)")
            let message = Reads.describe(over.saved[id])
            try context.expect(
                message.contains("r\(n)") && message.contains("target"), "the error names both records",
                actual: message)
            try Reads.expectAbsent(db, id, in: context)
        }

        context.step("an update of a referrer that keeps its reference is not counted again")
        let kept = try Reads.record(db, CKRecord.ID(recordName: "r0", zoneID: zone), in: context)
        kept["note"] = "still refers"
        let keep = Ops.modify(db, save: [kept])
        try context.expect(
            keep.error == nil && keep.record(kept.recordID) != nil, "the update is saved",
            actual: Reads.describe(keep.error))

        context.step("in one request: r1 points elsewhere, r752 takes its place")
        let moved = try Reads.record(db, CKRecord.ID(recordName: "r1", zoneID: zone), in: context)
        moved["owner"] = CKRecord.Reference(
            recordID: CKRecord.ID(recordName: "other", zoneID: zone), action: .deleteSelf)
        let swap = Ops.modify(db, save: [moved, referrer(752)])
        try context.expect(
            swap.error == nil && swap.saved.values.allSatisfy { (try? $0.get()) != nil },
            "both saves succeed", actual: Reads.describe(swap.error))

        context.step("deleting the target deletes its 750 referrers")
        let deleted = Ops.modify(db, delete: [target])
        try context.expect(deleted.error == nil, "the delete succeeds", actual: Reads.describe(deleted.error))
        let left = Ops.zoneChanges(db, zone, since: nil)
        try context.expectEqual(Reads.names(left.changed), ["other", "r1"], "records left in the zone")
    }
}
