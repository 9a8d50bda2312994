import Foundation
import Stratus
import StratusWebServices
import Testing

/// Records out: Apple's record dictionary, every field type, `numbersAsStrings`, `desiredKeys`,
/// tombstones and zone IDs.
@Suite("Web Services records out")
struct WSRecordOutputTests {
    let translator = WSRecordTranslator(callerRecordName: "_caller")

    /// A record as the engine returns a saved one (system fields set), through its `Codable`.
    static func savedRecord() throws -> CKRecord {
        let json = #"""
            {"recordName": "r1", "zoneName": "Z", "ownerName": "__defaultOwner__", "recordType": "Item",
             "recordChangeTag": "tag-7", "created": 1700000000.123, "modified": 1700000001.5,
             "createdBy": "__defaultOwner__", "modifiedBy": "_other", "fields": {}}
            """#
        return try JSONDecoder().decode(CKRecord.self, from: Data(json.utf8))
    }

    func fields(_ set: (CKRecord) -> Void, numbersAsStrings: Bool = false) -> String {
        let record = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "r"))
        set(record)
        let dictionary = translator.dictionary(for: record, numbersAsStrings: numbersAsStrings, desiredKeys: nil)
        Self.expectWrittenAsSerialized(record, translator, numbersAsStrings: numbersAsStrings)
        return dictionary["fields"]?.serializedString() ?? "no fields"
    }

    /// The record endpoints write dictionaries without building them: the same bytes.
    static func expectWrittenAsSerialized(
        _ record: CKRecord, _ translator: WSRecordTranslator, numbersAsStrings: Bool = false,
        desiredKeys: [String]? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let built = translator.dictionary(for: record, numbersAsStrings: numbersAsStrings, desiredKeys: desiredKeys)
        let written = translator.serializedDictionary(
            for: record, numbersAsStrings: numbersAsStrings, desiredKeys: desiredKeys)
        #expect(
            String(decoding: written, as: UTF8.self) == built.serializedString(), sourceLocation: sourceLocation)
    }

    @Test func aSavedRecordsDictionary() throws {
        let record = try Self.savedRecord()
        record["title"] = "Hello"
        record.parent = CKRecord.Reference(
            recordID: CKRecord.ID(recordName: "p", zoneID: record.recordID.zoneID), action: .none)
        let text = translator.dictionary(for: record, numbersAsStrings: false, desiredKeys: nil).serializedString()
        Self.expectWrittenAsSerialized(record, translator)
        Self.expectWrittenAsSerialized(record, WSRecordTranslator())
        #expect(
            text == #"{"created":{"deviceID":"stratusd","timestamp":1700000000123,"userRecordName":"_caller"},"#
                + #""deleted":false,"fields":{"title":{"type":"STRING","value":"Hello"}},"#
                + #""modified":{"deviceID":"stratusd","timestamp":1700000001500,"userRecordName":"_other"},"#
                + #""parent":{"action":"NONE","recordName":"p","zoneID":{"ownerRecordName":"_caller","zoneName":"Z"}},"#
                + #""recordChangeTag":"tag-7","recordName":"r1","recordType":"Item","#
                + #""zoneID":{"ownerRecordName":"_caller","zoneName":"Z"}}"#)
    }

    @Test func anUnsavedRecordHasNoSystemFields() {
        let record = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "r"))
        let dictionary = WSRecordTranslator().dictionary(for: record, numbersAsStrings: false, desiredKeys: nil)
        Self.expectWrittenAsSerialized(record, WSRecordTranslator())
        #expect(
            dictionary.serializedString()
                == #"{"deleted":false,"fields":{},"recordName":"r","recordType":"T","zoneID":{"ownerRecordName":"__defaultOwner__","zoneName":"_defaultZone"}}"#
        )
    }

    @Test func scalarsOut() {
        #expect(fields { $0["s"] = "x\"y" } == #"{"s":{"type":"STRING","value":"x\"y"}}"#)
        #expect(
            fields { $0["i"] = Int64.max }
                == #"{"i":{"stratusNumberType":"Int64","type":"INT64","value":9223372036854775807}}"#)
        #expect(fields { $0["i"] = 7 as Int } == #"{"i":{"type":"INT64","value":7}}"#)
        #expect(fields { $0["i"] = Int16(-3) } == #"{"i":{"stratusNumberType":"Int16","type":"INT64","value":-3}}"#)
        #expect(fields { $0["b"] = true } == #"{"b":{"stratusNumberType":"Bool","type":"INT64","value":1}}"#)
        // Every integer type: written from the stored value, the same as its public value.
        #expect(
            fields { $0["u"] = UInt64(Int64.max) }
                == #"{"u":{"stratusNumberType":"UInt64","type":"INT64","value":9223372036854775807}}"#)
        #expect(fields { $0["u"] = UInt(42) } == #"{"u":{"stratusNumberType":"UInt","type":"INT64","value":42}}"#)
        #expect(
            fields { $0["u"] = UInt32.max }
                == #"{"u":{"stratusNumberType":"UInt32","type":"INT64","value":4294967295}}"#)
        #expect(
            fields { $0["u"] = UInt16(65_535) } == #"{"u":{"stratusNumberType":"UInt16","type":"INT64","value":65535}}"#
        )
        #expect(fields { $0["u"] = UInt8(255) } == #"{"u":{"stratusNumberType":"UInt8","type":"INT64","value":255}}"#)
        #expect(fields { $0["i"] = Int8(-128) } == #"{"i":{"stratusNumberType":"Int8","type":"INT64","value":-128}}"#)
        #expect(
            fields { $0["i"] = Int32.min } == #"{"i":{"stratusNumberType":"Int32","type":"INT64","value":-2147483648}}"#
        )
        #expect(
            fields { $0["i"] = Int64.min }
                == #"{"i":{"stratusNumberType":"Int64","type":"INT64","value":-9223372036854775808}}"#)
        #expect(fields { $0["b"] = false } == #"{"b":{"stratusNumberType":"Bool","type":"INT64","value":0}}"#)
        #expect(
            fields { $0["f"] = Float(0.1) }
                == #"{"f":{"stratusNumberType":"Float","type":"DOUBLE","value":0.10000000149011612}}"#)
        #expect(fields { $0["n"] = NSNumber(value: 5) } == #"{"n":{"type":"INT64","value":5}}"#)
        #expect(fields { $0["n"] = NSNumber(value: 0.5) } == #"{"n":{"type":"DOUBLE","value":0.5}}"#)
        #expect(fields { $0["d"] = 2.0 } == #"{"d":{"type":"DOUBLE","value":2.0}}"#)
        #expect(fields { $0["d"] = Float(0.5) } == #"{"d":{"stratusNumberType":"Float","type":"DOUBLE","value":0.5}}"#)
        #expect(fields { $0["d"] = Double.nan } == #"{"d":{"type":"DOUBLE","value":"NaN"}}"#)
        #expect(fields { $0["d"] = Double.infinity } == #"{"d":{"type":"DOUBLE","value":"Infinity"}}"#)
        #expect(fields { $0["d"] = -Double.infinity } == #"{"d":{"type":"DOUBLE","value":"-Infinity"}}"#)
        #expect(fields { $0["x"] = Data([1, 2, 3, 255]) } == #"{"x":{"type":"BYTES","value":"AQID/w=="}}"#)
        #expect(fields { $0["x"] = Data([1]) } == #"{"x":{"type":"BYTES","value":"AQ=="}}"#, "padded")
        #expect(
            fields { $0["t"] = Date(timeIntervalSince1970: 1_700_000_000.1234) }
                == #"{"t":{"type":"TIMESTAMP","value":1700000000123}}"#)
        #expect(
            fields { $0["t"] = Date(timeIntervalSince1970: 1_700_000_000.1236) }
                == #"{"t":{"type":"TIMESTAMP","value":1700000000124}}"#, "rounded to the millisecond")
    }

    @Test func referencesAndLocationsOut() {
        let target = CKRecord.ID(recordName: "t", zoneID: CKRecordZone.ID(zoneName: "Y", ownerName: "_o"))
        #expect(
            fields { $0["r"] = CKRecord.Reference(recordID: target, action: .deleteSelf) }
                == #"{"r":{"type":"REFERENCE","value":{"action":"DELETE_SELF","recordName":"t","zoneID":{"ownerRecordName":"_o","zoneName":"Y"}}}}"#
        )
        let location = CLLocation(
            coordinate: CLLocationCoordinate2D(latitude: 48.5, longitude: 2.25), altitude: 35, horizontalAccuracy: 5,
            verticalAccuracy: -1, course: 90, speed: .nan, timestamp: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(
            fields { $0["l"] = location }
                == #"{"l":{"type":"LOCATION","value":{"altitude":35.0,"course":90.0,"horizontalAccuracy":5.0,"latitude":48.5,"#
                + #""longitude":2.25,"speed":"NaN","timestamp":1700000000000,"verticalAccuracy":-1.0}}}"#)
    }

    @Test func listsOut() {
        #expect(fields { $0["l"] = ["a", "b"] } == #"{"l":{"type":"STRING_LIST","value":["a","b"]}}"#)
        #expect(
            fields { $0["l"] = [1, 2] as [Int64] }
                == #"{"l":{"stratusNumberType":"Int64","type":"INT64_LIST","value":[1,2]}}"#)
        #expect(fields { $0["l"] = [1.5, .nan] } == #"{"l":{"type":"DOUBLE_LIST","value":[1.5,"NaN"]}}"#)
        #expect(
            fields { $0["l"] = [true, false] }
                == #"{"l":{"stratusNumberType":"Bool","type":"INT64_LIST","value":[1,0]}}"#)
        #expect(
            fields { $0["l"] = [NSNumber(value: 1), NSNumber(value: 2.5)] }
                == #"{"l":{"type":"DOUBLE_LIST","value":[1.0,2.5]}}"#, "integers and doubles mixed")
        #expect(fields { $0["l"] = [Data([1])] } == #"{"l":{"type":"BYTES_LIST","value":["AQ=="]}}"#)
        #expect(
            fields { $0["l"] = [Date(timeIntervalSince1970: 1)] } == #"{"l":{"type":"TIMESTAMP_LIST","value":[1000]}}"#)
        #expect(
            fields { $0["l"] = [CKRecord.Reference(recordID: CKRecord.ID(recordName: "a"), action: .none)] }
                == #"{"l":{"type":"REFERENCE_LIST","value":[{"action":"NONE","recordName":"a","zoneID":{"ownerRecordName":"_caller","zoneName":"_defaultZone"}}]}}"#
        )
        #expect(
            fields { $0["l"] = [String]() } == #"{"l":{"type":"LIST","value":[]}}"#, "an empty list has no item type")
    }

    @Test func locationListsOut() throws {
        let value = try JSONValue.parse(fields { $0["l"] = [CLLocation(latitude: 1, longitude: 2)] })
        #expect(value["l"]?["type"] == "LOCATION_LIST")
        guard case .array(let items)? = value["l"]?["value"] else {
            Issue.record("no list in \(value)")
            return
        }
        #expect(items.count == 1)
        #expect(items.first?["latitude"] == .double(1))
        #expect(items.first?["longitude"] == .double(2))
    }

    @Test func numbersAsStrings() {
        #expect(
            fields({ $0["i"] = Int64.min }, numbersAsStrings: true)
                == #"{"i":{"stratusNumberType":"Int64","type":"INT64","value":"-9223372036854775808"}}"#)
        #expect(fields({ $0["d"] = 0.1 }, numbersAsStrings: true) == #"{"d":{"type":"DOUBLE","value":"0.1"}}"#)
        #expect(fields({ $0["d"] = 1e300 }, numbersAsStrings: true) == #"{"d":{"type":"DOUBLE","value":"1e+300"}}"#)
        #expect(
            fields({ $0["d"] = -Double.infinity }, numbersAsStrings: true)
                == #"{"d":{"type":"DOUBLE","value":"-Infinity"}}"#)
        #expect(
            fields({ $0["l"] = [1, 2] as [Int] }, numbersAsStrings: true)
                == #"{"l":{"type":"INT64_LIST","value":["1","2"]}}"#)
        #expect(fields({ $0["l"] = [0.5] }, numbersAsStrings: true) == #"{"l":{"type":"DOUBLE_LIST","value":["0.5"]}}"#)
        #expect(
            fields({ $0["t"] = Date(timeIntervalSince1970: 2) }, numbersAsStrings: true)
                == #"{"t":{"type":"TIMESTAMP","value":2000}}"#, "not a number type")
        #expect(fields({ $0["s"] = "12" }, numbersAsStrings: true) == #"{"s":{"type":"STRING","value":"12"}}"#)
    }

    /// Without an asset coder (no server to sign download URLs) assets are left out.
    @Test func assetsAreOmittedWithoutAnAssetCoder() {
        #expect(fields { $0["a"] = CKAsset(fileURL: URL(fileURLWithPath: "/tmp/a")) } == "{}")
        #expect(fields { $0["a"] = [CKAsset(fileURL: URL(fileURLWithPath: "/tmp/a"))] } == "{}")
        #expect(
            fields {
                $0["a"] = CKAsset(fileURL: URL(fileURLWithPath: "/tmp/a"))
                $0["s"] = "kept"
            } == #"{"s":{"type":"STRING","value":"kept"}}"#)
    }

    @Test func desiredKeysChooseTheFields() {
        let record = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "r"))
        record["a"] = "1"
        record["b"] = 2
        record["c"] = 3.5
        func keys(_ desired: [String]?) -> [String] {
            guard
                case .object(let fields)? = translator.dictionary(
                    for: record, numbersAsStrings: false, desiredKeys: desired)["fields"]
            else { return ["not an object"] }
            return fields.keys.sorted()
        }
        for desired in [nil, ["c", "a"], ["missing", "b"], [], ["b", "a", "b"], ["é", "e", "a"]] {
            Self.expectWrittenAsSerialized(record, translator, desiredKeys: desired)
        }
        #expect(keys(nil) == ["a", "b", "c"])
        #expect(keys(["c", "a"]) == ["a", "c"])
        #expect(keys(["missing", "b"]) == ["b"])
        #expect(keys([]) == [])
    }

    @Test func tombstonesAndZoneIDs() {
        let id = CKRecord.ID(recordName: "gone", zoneID: CKRecordZone.ID(zoneName: "Z"))
        #expect(
            translator.tombstone(for: id, recordType: "Item").serializedString()
                == #"{"deleted":true,"recordName":"gone","recordType":"Item","zoneID":{"ownerRecordName":"_caller","zoneName":"Z"}}"#
        )
        #expect(translator.tombstone(for: id, recordType: nil)["recordType"] == nil)
        #expect(
            WSRecordTranslator().dictionary(for: CKRecordZone.ID.default) == [
                "zoneName": "_defaultZone", "ownerRecordName": "__defaultOwner__",
            ])
        #expect(
            translator.dictionary(for: CKRecordZone.ID(zoneName: "Z", ownerName: "_o")) == [
                "zoneName": "Z", "ownerRecordName": "_o",
            ])
        #expect(translator.zoneID(from: WSZoneID(zoneName: "Z")) == CKRecordZone.ID(zoneName: "Z"))
        #expect(
            translator.zoneID(from: WSZoneID(zoneName: "Z", ownerRecordName: "__defaultOwner__"))
                == CKRecordZone.ID(zoneName: "Z"))
        #expect(
            translator.zoneID(from: WSZoneID(zoneName: "Z", ownerRecordName: "_caller"))
                == CKRecordZone.ID(zoneName: "Z"))
        #expect(
            translator.zoneID(from: WSZoneID(zoneName: "Z", ownerRecordName: "_o"))
                == CKRecordZone.ID(zoneName: "Z", ownerName: "_o"), "another owner is kept for the endpoint to refuse")
    }
}
