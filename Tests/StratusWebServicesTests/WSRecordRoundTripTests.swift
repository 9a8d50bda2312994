import Foundation
import Stratus
import StratusWebServices
import Testing

/// Whole records: a request's record dictionary into a `CKRecord`, and record → JSON → record.
@Suite("Web Services records round trip")
struct WSRecordRoundTripTests {
    let translator = WSRecordTranslator(callerRecordName: "_caller")
    let requestZone = CKRecordZone.ID(zoneName: "Request")

    func recordDictionary(_ json: String) throws -> WSRecordDictionary {
        try JSONValueDecoder().decode(WSRecordDictionary.self, from: Array(json.utf8))
    }

    /// A record with a value of every type the translator serves.
    static func everyType() -> CKRecord {
        let zone = CKRecordZone.ID(zoneName: "Z")
        let record = CKRecord(recordType: "Everything", recordID: CKRecord.ID(recordName: "all", zoneID: zone))
        let target = CKRecord.ID(recordName: "target", zoneID: zone)
        let location = CLLocation(
            coordinate: CLLocationCoordinate2D(latitude: -33.5, longitude: 151.25), altitude: 12.5,
            horizontalAccuracy: 3, verticalAccuracy: 4, course: 180, speed: 2.5,
            timestamp: Date(timeIntervalSince1970: 1_650_000_000.25))
        record["string"] = "naïve ☃ \"quoted\""
        record["int"] = Int64.min
        record["double"] = 0.1
        record["bytes"] = Data((0...255).map { UInt8($0) })
        record["date"] = Date(timeIntervalSince1970: 1_700_000_000.123)
        record["reference"] = CKRecord.Reference(recordID: target, action: .deleteSelf)
        record["location"] = location
        record["strings"] = ["a", "", "c"]
        record["ints"] = [Int64.max, 0, -1]
        record["doubles"] = [1.5, -0.0, 1e-300]
        record["datas"] = [Data(), Data([7])]
        record["dates"] = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -86_400.5)]
        record["references"] = [CKRecord.Reference(recordID: target, action: .none)]
        record["locations"] = [location]
        record.parent = CKRecord.Reference(recordID: target, action: .none)
        return record
    }

    @Test func recordToJSONToRecordIsTheSameRecord() throws {
        let original = Self.everyType()
        for numbersAsStrings in [false, true] {
            let json = translator.dictionary(for: original, numbersAsStrings: numbersAsStrings, desiredKeys: nil)
            let request = try recordDictionary(json.serializedString())
            let copy = try translator.record(from: request, defaultZone: requestZone)
            #expect(copy.recordID == original.recordID)
            #expect(copy.recordType == original.recordType)
            #expect(copy.parent == original.parent)
            #expect(Set(copy.allKeys()) == Set(original.allKeys()))
            #expect(Set(copy.changedKeys()) == Set(original.allKeys()), "every field sent is a changed key")
            #expect(copy["string"] as? String == original["string"] as? String)
            #expect(copy["int"] as? Int64 == .min)
            #expect(copy["double"] as? Double == 0.1)
            #expect(copy["bytes"] as? Data == original["bytes"] as? Data)
            #expect(copy["date"] as? Date == original["date"] as? Date)
            #expect(copy["reference"] as? CKRecord.Reference == original["reference"] as? CKRecord.Reference)
            #expect(copy["location"] as? CLLocation == original["location"] as? CLLocation)
            #expect(copy["strings"] as? [String] == ["a", "", "c"])
            #expect(copy["ints"] as? [Int64] == [.max, 0, -1])
            #expect((copy["doubles"] as? [Double])?.map(\.bitPattern) == [1.5, -0.0, 1e-300].map(\.bitPattern))
            #expect(copy["datas"] as? [Data] == [Data(), Data([7])])
            #expect(copy["dates"] as? [Date] == original["dates"] as? [Date])
            #expect(copy["references"] as? [CKRecord.Reference] == original["references"] as? [CKRecord.Reference])
            #expect(copy["locations"] as? [CLLocation] == original["locations"] as? [CLLocation])
            // And out again: the same JSON.
            #expect(translator.dictionary(for: copy, numbersAsStrings: numbersAsStrings, desiredKeys: nil) == json)
        }
    }

    @Test func jsonToRecordToJSONKeepsWhatWasSent() throws {
        let sent = #"""
            {"recordName": "r", "recordType": "T", "zoneID": {"zoneName": "Z", "ownerRecordName": "_caller"},
             "fields": {"n": {"value": 42, "type": "INT64"}, "d": {"value": 42.0}, "s": {"value": "42"},
                        "when": {"value": 1700000000999, "type": "TIMESTAMP"}, "tags": {"value": ["x", "y"]}}}
            """#
        let record = try translator.record(from: try recordDictionary(sent), defaultZone: requestZone)
        let back = translator.dictionary(for: record, numbersAsStrings: false, desiredKeys: nil)
        #expect(
            back["fields"]?.serializedString()
                == #"{"d":{"type":"DOUBLE","value":42.0},"n":{"type":"INT64","value":42},"s":{"type":"STRING","value":"42"},"#
                + #""tags":{"type":"STRING_LIST","value":["x","y"]},"when":{"type":"TIMESTAMP","value":1700000000999}}"#
        )
        #expect(back["zoneID"] == ["zoneName": "Z", "ownerRecordName": "_caller"])
    }

    @Test func theRequestZoneAndANewNameAreDefaults() throws {
        let record = try translator.record(
            from: try recordDictionary(#"{"recordType": "T"}"#), defaultZone: requestZone)
        #expect(record.recordID.zoneID == requestZone)
        #expect(UUID(uuidString: record.recordID.recordName) != nil, "a new UUID name")
        #expect(record.allKeys().isEmpty)
        let named = try recordDictionary(#"{"recordName": "n", "zoneID": {"zoneName": "Other"}}"#)
        #expect(
            translator.recordID(from: named, defaultZone: requestZone)
                == CKRecord.ID(recordName: "n", zoneID: CKRecordZone.ID(zoneName: "Other")))
    }

    @Test func nullFieldsAreChangedKeysWithoutValues() throws {
        let record = try translator.record(
            from: try recordDictionary(
                #"{"recordType": "T", "fields": {"gone": {"value": null}, "kept": {"value": 1}}}"#),
            defaultZone: requestZone)
        #expect(record.allKeys() == ["kept"])
        #expect(Set(record.changedKeys()) == ["gone", "kept"])
    }

    @Test func parentIsSetOrCleared() throws {
        let set = try translator.record(
            from: try recordDictionary(#"{"recordType": "T", "parent": {"recordName": "p"}}"#), defaultZone: requestZone
        )
        #expect(
            set.parent == CKRecord.Reference(recordID: CKRecord.ID(recordName: "p", zoneID: requestZone), action: .none)
        )
        let cleared = try translator.record(
            from: try recordDictionary(#"{"recordType": "T", "parent": null}"#), defaultZone: requestZone)
        #expect(cleared.parent == nil)
        let absent = try translator.record(
            from: try recordDictionary(#"{"recordType": "T"}"#), defaultZone: requestZone)
        #expect(absent.parent == nil)
    }

    @Test func recordLevelErrors() throws {
        #expect(throws: WSTranslationError(reason: "recordType is required to save a record")) {
            try translator.record(from: try recordDictionary(#"{"recordName": "r"}"#), defaultZone: requestZone)
        }
        #expect(throws: WSTranslationError(reason: "parent: a reference needs recordName, a string")) {
            try translator.record(
                from: try recordDictionary(#"{"recordType": "T", "parent": {}}"#), defaultZone: requestZone)
        }
        let error = #expect(throws: WSTranslationError.self) {
            try translator.record(
                from: try recordDictionary(
                    #"{"recordType": "T", "fields": {"a": {"value": 1}, "bad": {"value": 1, "type": "NOPE"}}}"#),
                defaultZone: requestZone)
        }
        #expect(error?.field == "bad")
        #expect(error?.reason.hasPrefix("Field 'bad': unknown type 'NOPE'") == true)
    }
}
