import Foundation
import Testing

@testable import Stratus

/// A value set on a record is converted from its own type (`FieldValue.init(recordValue:)` over
/// an opened `any CKRecordValue`) for the common types, and through `Any` for the others: both
/// give the same stored value for every type, so the shortcut changes nothing stored.
@Suite struct RecordValueConversionTests {
    /// A value of every type a record stores, made fresh for each test.
    static func values() -> [any CKRecordValue] {
        [
            "text", "", 42, Int.min, Int64.max, Int32(-5), Int16(3), Int8(-1), UInt(7), UInt64(9), UInt8(255),
            0.25, Float(1.5), true, false, Date(timeIntervalSinceReferenceDate: 12), Data([0, 1]), NSNumber(value: 3),
            NSNumber(value: 2.5), NSNumber(value: true), "ns" as NSString, ["a", "b"], [1, 2],
            CKRecord.Reference(recordID: CKRecord.ID(recordName: "x"), action: .none),
        ]
    }

    @Test func theTypedAndTheGeneralConversionAgree() {
        for value in Self.values() {
            let typed = FieldValue(recordValue: value)
            let general = FieldValue(recordValue: value as Any)
            #expect(typed != nil, "\(type(of: value))")
            #expect(typed == general, "\(type(of: value))")
        }
    }

    /// Through the record: each common type reads back as itself.
    @Test func commonTypesReadBackAsThemselves() {
        let record = CKRecord(recordType: "T")
        record["s"] = "x"
        record["i"] = 3
        record["d"] = 0.5
        record["b"] = true
        record["t"] = Date(timeIntervalSinceReferenceDate: 1)
        record["data"] = Data([9])
        record["i64"] = Int64(4)
        #expect(record["s"] as? String == "x")
        #expect(record["i"] as? Int == 3)
        #expect(record["d"] as? Double == 0.5)
        #expect(record["b"] as? Bool == true)
        #expect(record["t"] as? Date == Date(timeIntervalSinceReferenceDate: 1))
        #expect(record["data"] as? Data == Data([9]))
        #expect(record["i64"] as? Int64 == 4)
        #expect(record.allKeys() == ["b", "d", "data", "i", "i64", "s", "t"])
    }
}
