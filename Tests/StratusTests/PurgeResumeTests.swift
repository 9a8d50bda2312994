import Foundation
import Stratus
import Testing

/// After `purgeChangeHistory(in:)`, the records that survive keep their change-log entries
/// below the zone's new horizon. A nil-token fetch paged with `resultsLimit` hands out
/// intermediate tokens at those positions, and each must be a valid resume point (invariants 7
/// and 9), while every token issued before the purge expires (decision 0003, rule 6).
@Suite struct PurgeResumeTests {
    @Test func aPagedNilTokenFetchAfterAPurgeCanBeFollowedToTheEnd() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zone = try await OpsTestKit.makeZone("Z", in: database)
        var records: [CKRecord] = []
        for n in 0..<5 {
            let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "r\(n)", zoneID: zone))
            record["n"] = n
            records.append(record)
        }
        try await OpsTestKit.save(records, in: database)
        let beforePurge = try await database.recordZoneChanges(inZoneWith: zone, since: nil).changeToken
        _ = try await database.modifyRecords(saving: [], deleting: [records[4].recordID])
        try database.purgeChangeHistory(in: zone)

        // Tokens issued before the purge expire (decision 0003)…
        await #expect {
            _ = try await database.recordZoneChanges(inZoneWith: zone, since: beforePurge)
        } throws: { error in
            (error as? CKError)?.code == .changeTokenExpired
        }
        // …but the walk a client then starts from nil must reach the end.
        var names: [String] = []
        var token: CKServerChangeToken?
        var batches = 0
        while true {
            let batch = try await database.recordZoneChanges(inZoneWith: zone, since: token, resultsLimit: 1)
            names += batch.modificationResultsByID.keys.map(\.recordName)
            token = batch.changeToken
            batches += 1
            if !batch.moreComing || batches > 20 { break }
        }
        #expect(names.sorted() == ["r0", "r1", "r2", "r3"])
    }
}
