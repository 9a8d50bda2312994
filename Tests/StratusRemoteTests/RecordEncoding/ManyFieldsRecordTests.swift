import Foundation
import Stratus
import StratusRemote
import StratusTestSupport
import Testing

/// A record of tens of thousands of fields (a client chooses how many, up to the 1 MB record
/// limit) through every path a remote container and `stratusd` carry it: the binary save, the
/// binary changes, the JSON lookup with desired keys. Each step once cost time growing with
/// the square of the fields (a scan of the changed keys per field set, of the fields per
/// desired key): in a debug build, this test took 98 s with those costs and 2.5 s without.
@Suite("Remote containers: a record of many fields")
struct ManyFieldsRecordTests {
    let zone = CKRecordZone.ID(zoneName: "Wide")
    static let fieldCount = 40_000

    @Test func aRecordOfManyFieldsIsSavedFetchedAndLookedUp() async throws {
        let fixture = try await RecordEncodingFixture.start(recordEncoding: true)
        do {
            let database = try fixture.container().privateCloudDatabase
            _ = try await database.save(CKRecordZone(zoneID: zone))
            let wide = CKRecord(recordType: "Wide", recordID: CKRecord.ID(recordName: "wide", zoneID: zone))
            // Set in an order that is not the fields' sorted one, each once, some twice.
            for n in (0..<Self.fieldCount).reversed() { wide["f\(n)"] = Int64(n) }
            for n in stride(from: 0, to: Self.fieldCount, by: 1_000) { wide["f\(n)"] = Int64(-n) }
            #expect(wide.changedKeys().count == Self.fieldCount)

            let saved = try await database.modifyRecords(saving: [wide], deleting: [])
            let echo = try #require(try saved.saveResults[wide.recordID]?.get())
            #expect(echo.allKeys().count == Self.fieldCount)
            #expect(echo["f1000"] as? Int64 == -1_000 && echo["f1001"] as? Int64 == 1_001)

            let changes = try await database.recordZoneChanges(inZoneWith: zone, since: nil)
            let fetched = try #require(try changes.modificationResultsByID[wide.recordID]?.get().record)
            #expect(fetched.allKeys() == echo.allKeys())
            #expect(fetched.storedFields.values == echo.storedFields.values)

            let wanted = (0..<1_000).map { "f\($0 * 2)" }
            let looked = try await database.records(for: [wide.recordID], desiredKeys: wanted)
            let some = try #require(try looked[wide.recordID]?.get())
            #expect(some.allKeys().count == wanted.count)
            #expect(some["f1000"] as? Int64 == -1_000 && some["f1002"] as? Int64 == 1_002 && some["f1"] == nil)
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }
}
