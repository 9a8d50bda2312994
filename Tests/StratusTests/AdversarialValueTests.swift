import Foundation
import Stratus
import Testing

/// Values set as `NSNumber` (as Core Data and KVC code hands them over) keep their meaning.
@Suite struct AdversarialValueTests {
    /// On Linux an `NSNumber` holding 0 or 1 also casts to `Bool`: it was stored as a Bool, and
    /// the fetched value no longer read back as a number (`as? Int` gave nil).
    @Test func nsNumbersReadBackAsNumbers() async throws {
        let (database, zoneID, _) = try await AdversarialKit.fixture()
        let record = CKRecord(recordType: "Numbers", recordID: CKRecord.ID(recordName: "ns", zoneID: zoneID))
        record["zero"] = NSNumber(value: 0)
        record["one"] = NSNumber(value: 1)
        record["seven"] = NSNumber(value: 7)
        record["half"] = NSNumber(value: 2.5)
        record["flag"] = NSNumber(value: true)
        record["min32"] = NSNumber(value: Int32.min)
        record["unsigned"] = NSNumber(value: UInt64(Int64.max))
        record.setValue(NSNumber(value: 1), forKey: "viaKVC")
        try await OpsTestKit.save([record], in: database)
        let fetched = try await database.record(for: record.recordID)
        #expect(fetched["zero"] as? Int == 0)
        #expect(fetched["one"] as? Int == 1)
        #expect(fetched["one"] as? Int64 == 1)
        #expect(fetched["viaKVC"] as? Int == 1)
        #expect(fetched["seven"] as? Int == 7)
        #expect(fetched["half"] as? Double == 2.5)
        #expect(fetched["flag"] as? Bool == true)
        #expect(fetched["min32"] as? Int == Int(Int32.min))
        #expect(fetched["unsigned"] as? Int64 == Int64.max)
        let typed: Int? = fetched["one"]
        #expect(typed == 1)
    }

    /// An unsigned NSNumber above Int64.max cannot be stored: invalidArguments naming the field,
    /// not a silent wrap to a negative number.
    @Test func anUnsignedNSNumberAboveInt64MaxIsRejected() async throws {
        try await AdversarialKit.expectRejected(
            { zone in
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "bad", zoneID: zone))
                record["huge"] = NSNumber(value: UInt64.max)
                return record
            }, code: .invalidArguments, mentions: ["huge", "18446744073709551615", "Int64.max"])
    }
}
