import Foundation
import Stratus
import Testing

/// A zone's number is remembered per process (decision 0023.2) and used to read its records'
/// pointers early; a zone deleted and made again gets a new number, so the remembered one is
/// stale. Reads and writes in the new zone must not see the old zone's records.
@Suite struct ZoneNumberHintTests {
    @Test func aRecreatedZoneSeesNoneOfTheOldZonesRecords() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zone = try await OpsTestKit.makeZone("Z", in: database)
        let id = CKRecord.ID(recordName: "r1", zoneID: zone)
        let old = CKRecord(recordType: "T", recordID: id)
        old["v"] = 1
        try await OpsTestKit.save([old], in: database)
        // Read once so the zone's number is remembered, then delete and make the zone again.
        _ = try await database.record(for: id)
        try await database.deleteRecordZone(withID: zone)
        _ = try await OpsTestKit.makeZone("Z", in: database)

        let fetched = try await database.records(for: [id])
        #expect(OpsTestKit.code(fetched[id].map { $0.map { _ in () } }) == .unknownItem)
        // A create of the same name succeeds (the old record would make it a conflict), and
        // the record read back is the new one.
        let new = CKRecord(recordType: "T", recordID: id)
        new["v"] = 2
        try await OpsTestKit.save([new], in: database)
        let readBack = try await database.record(for: id)
        #expect((readBack["v"] as? NSNumber)?.intValue == 2, "\(String(describing: readBack["v"]))")
    }
}
