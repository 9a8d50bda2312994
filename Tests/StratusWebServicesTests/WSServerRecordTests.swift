import Foundation
import Stratus
import StratusWebServices
import Testing

/// Records of answers in (`serverRecord(from:defaultZone:)`) and records to save out
/// (`requestDictionary(for:keys:)`), each against the server's own direction.
@Suite("Web Services records, the client direction")
struct WSServerRecordTests {
    /// A record with a field of every type but ASSET (which needs the client's asset coder).
    static func everyType(_ id: CKRecord.ID) -> CKRecord {
        let record = CKRecord(recordType: "Every", recordID: id)
        record["s"] = "text"
        record["i"] = Int64.max
        record["small"] = 7
        record["d"] = 0.25
        record["b"] = Data([1, 2, 3])
        record["t"] = Date(timeIntervalSince1970: 1_700_000_000.123)
        record["r"] = CKRecord.Reference(recordID: CKRecord.ID(recordName: "other"), action: .deleteSelf)
        record["l"] = CLLocation(
            coordinate: CLLocationCoordinate2D(latitude: 1.5, longitude: -2.5), altitude: 3, horizontalAccuracy: 4,
            verticalAccuracy: 5, course: 7, speed: 6, timestamp: Date(timeIntervalSince1970: 1_600_000_000))
        record["sl"] = ["a", "b"]
        record["il"] = [1, -2]
        record["dl"] = [0.5, 1.5]
        record["bl"] = [Data([9]), Data()]
        record["tl"] = [Date(timeIntervalSince1970: 1), Date(timeIntervalSince1970: 2)]
        record["rl"] = [CKRecord.Reference(recordID: CKRecord.ID(recordName: "x"), action: .none)]
        record["ll"] = [CLLocation(latitude: 10, longitude: 20)]
        record["e"] = [String]()
        return record
    }

    @Test func aFetchedRecordReadsBackAsTheEngineGaveIt() throws {
        let fixture = try WSClientFixture()
        let parent = CKRecord(recordType: "Every", recordID: CKRecord.ID(recordName: "parent"))
        let record = Self.everyType(CKRecord.ID(recordName: "child"))
        record.parent = CKRecord.Reference(recordID: parent.recordID, action: .none)
        try fixture.save([parent, record])
        let fetched = try fixture.fetch(record.recordID)

        let answer = try WSClientFixture.wire(
            fixture.translator.dictionary(for: fetched, numbersAsStrings: false, desiredKeys: nil))
        let read = try fixture.translator.serverRecord(from: answer, defaultZone: .default)

        #expect(read.recordID == fetched.recordID)
        #expect(read.recordType == "Every")
        #expect(read.allKeys().sorted() == fetched.allKeys().sorted())
        #expect(read.changedKeys().isEmpty)
        #expect(read.parent?.recordID == parent.recordID)
        #expect(read.recordChangeTag == fetched.recordChangeTag)
        #expect(read.recordChangeTag != nil)
        #expect(read.creatorUserRecordID == fetched.creatorUserRecordID)
        #expect(read.lastModifiedUserRecordID == fetched.lastModifiedUserRecordID)
        #expect(read.creatorUserRecordID != nil)
        let (created, modified) = (try #require(fetched.creationDate), try #require(fetched.modificationDate))
        #expect(abs(try #require(read.creationDate).timeIntervalSince(created)) < 0.001)
        #expect(abs(try #require(read.modificationDate).timeIntervalSince(modified)) < 0.001)
        // Every field, system field and the parent as the server writes them again.
        #expect(fixture.translator.dictionary(for: read, numbersAsStrings: false, desiredKeys: nil) == answer)
        #expect(read["s"] as? String == "text")
        #expect(read["i"] as? Int64 == Int64.max)
        #expect((read["r"] as? CKRecord.Reference)?.action == .deleteSelf)
        #expect((read["l"] as? CLLocation)?.course == 7)
        #expect(read["tl"] as? [Date] == [Date(timeIntervalSince1970: 1), Date(timeIntervalSince1970: 2)])
    }

    @Test func aRecordInAZoneKeepsItsZoneAndOneWithoutAZoneIDTakesTheDefault() throws {
        let translator = WSRecordTranslator(callerRecordName: "_caller")
        let zone = CKRecordZone.ID(zoneName: "Z", ownerName: CKCurrentUserDefaultName)
        var answer: JSONValue = [
            "recordName": "n", "recordType": "T", "fields": [:],
            "zoneID": ["zoneName": "Z", "ownerRecordName": "_caller"],
        ]
        #expect(try translator.serverRecord(from: answer, defaultZone: .default).recordID.zoneID == zone)
        answer = ["recordName": "n", "recordType": "T", "fields": [:]]
        #expect(try translator.serverRecord(from: answer, defaultZone: zone).recordID.zoneID == zone)
        #expect(try translator.serverRecord(from: answer, defaultZone: zone).creationDate == nil)
    }

    @Test func aDictionaryThatIsNotARecordIsRefused() {
        let translator = WSRecordTranslator()
        #expect(throws: WSTranslationError.self) {
            try translator.serverRecord(from: ["recordType": "T"], defaultZone: .default)
        }
        #expect(throws: WSTranslationError.self) {
            try translator.serverRecord(
                from: ["recordName": "n", "recordType": "T", "fields": ["f": ["value": "x", "type": "INT64"]]],
                defaultZone: .default)
        }
        #expect(throws: WSTranslationError.self) {
            try translator.serverRecord(
                from: ["recordName": "n", "recordType": "T", "created": ["userRecordName": "u"]],
                defaultZone: .default)
        }
    }

    /// The direct reader (`WSRecordDictionary(reading:)`) refuses what `Decodable` refused,
    /// naming the member.
    @Test(arguments: [
        (#"{"recordName": 5, "recordType": "T"}"#, "recordName is an integer"),
        (#"{"recordName": "n", "recordType": "T", "fields": []}"#, "fields is an array"),
        (
            #"{"recordName": "n", "recordType": "T", "fields": {"f": {"type": "STRING"}}}"#,
            "field 'f' is not {value, type}"
        ),
        (#"{"recordName": "n", "recordType": "T", "fields": {"f": {"value": "x", "type": 3}}}"#, "fields.f.type is"),
        (#"{"recordName": "n", "recordType": "T", "zoneID": {"ownerRecordName": "o"}}"#, "zoneID has no zoneName"),
        (#"["n"]"#, "not an object"),
    ])
    func aMalformedMemberIsRefusedByName(json: String, says: String) throws {
        let value = try JSONValue.parse(Array(json.utf8))
        let error = #expect(throws: WSTranslationError.self) {
            try WSRecordTranslator().serverRecord(from: value, defaultZone: .default)
        }
        #expect(error?.reason.contains(says) == true, "\(String(describing: error))")
    }

    /// `Decodable` reads a record dictionary straight from the JSON when it can, and a
    /// malformed one still fails with the JSON path of the member at fault.
    @Test(arguments: [
        (#"{"recordName": 5, "recordType": "T"}"#, "operations[0].record.recordName"),
        (#"{"recordName": "n", "fields": []}"#, "operations[0].record.fields"),
        (#"{"recordName": "n", "fields": {"f": {"type": "STRING"}}}"#, "operations[0].record.fields.f.value"),
        (#"{"recordName": "n", "fields": {"f": {"value": "x", "type": 3}}}"#, "operations[0].record.fields.f.type"),
        (#"{"zoneID": {"ownerRecordName": "o"}}"#, "operations[0].record.zoneID.zoneName"),
    ])
    func aMalformedDictionaryIsRefusedAtItsPath(json: String, path: String) throws {
        struct Operation: Decodable { var record: WSRecordDictionary }
        struct Body: Decodable { var operations: [Operation] }
        let body = try JSONValue.parse(Array(#"{"operations": [{"record": \#(json)}]}"#.utf8))
        let error = #expect(throws: JSONDecodeError.self) { try JSONValueDecoder().decode(Body.self, from: body) }
        #expect(error?.path == path, "\(String(describing: error))")
    }

    @Test func decodingAWellFormedDictionaryGivesWhatTheReaderReads() throws {
        let text =
            #"{"recordName": "n", "recordType": "T", "recordChangeTag": "t", "parent": null, "#
            + #""zoneID": {"zoneName": "Z"}, "fields": {"a": {"value": 1}, "b": {"value": null}, "#
            + #""c": {"value": "x", "type": "STRING", "stratusNumberType": null}}}"#
        let json = try JSONValue.parse(Array(text.utf8))
        let decoded = try JSONValueDecoder().decode(WSRecordDictionary.self, from: json)
        #expect(decoded == (try WSRecordDictionary(reading: json)))
        #expect(decoded.parent == .null && decoded.zoneID == WSZoneID(zoneName: "Z"))
        #expect(decoded.fields?["b"]?.value == .null && decoded.fields?["c"]?.type == "STRING")
    }

    @Test func aRequestDictionaryDecodesOnTheServerToTheSameFieldsAndClears() throws {
        let translator = WSRecordTranslator(callerRecordName: "_caller")
        let zone = CKRecordZone.ID(zoneName: "Z", ownerName: CKCurrentUserDefaultName)
        let record = Self.everyType(CKRecord.ID(recordName: "r", zoneID: zone))
        record.parent = CKRecord.Reference(recordID: CKRecord.ID(recordName: "p", zoneID: zone), action: .none)
        let keys = record.allKeys() + ["gone"]
        let json = try WSClientFixture.wire(translator.requestDictionary(for: record, keys: keys))
        #expect(json["fields"]?["gone"] == ["value": .null])
        #expect(json["recordChangeTag"] == nil)

        let sent = try JSONValueDecoder().decode(WSRecordDictionary.self, from: json)
        let decoded = try translator.record(from: sent, defaultZone: .default)
        #expect(decoded.recordID == record.recordID)
        #expect(decoded.recordType == record.recordType)
        #expect(decoded.parent?.recordID == record.parent?.recordID)
        #expect(Set(decoded.changedKeys()) == Set(keys))
        #expect(decoded["gone"] == nil)
        for key in record.allKeys() {
            let original = try #require(record[key])
            let value = try #require(decoded[key], "\(key)")
            #expect(
                translator.fieldDictionary(for: value, numbersAsStrings: false)
                    == translator.fieldDictionary(for: original, numbersAsStrings: false), "\(key)")
        }
    }

    @Test func onlyTheGivenKeysAreSentWithTheChangeTagAndAClearedParent() throws {
        let fixture = try WSClientFixture()
        let parent = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "p"))
        let record = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "r"))
        record["a"] = 1
        record["b"] = "kept"
        record.parent = CKRecord.Reference(recordID: parent.recordID, action: .none)
        try fixture.save([parent, record])
        let fetched = try fixture.fetch(record.recordID)
        #expect(fixture.translator.requestDictionary(for: fetched, keys: [])["parent"] != nil)
        fetched.parent = nil
        fetched["a"] = nil
        let json = fixture.translator.requestDictionary(for: fetched, keys: ["a"])
        #expect(json["fields"] == ["a": ["value": .null]])
        #expect(json["parent"] == .null)
        #expect(json["recordChangeTag"] == fetched.recordChangeTag.map(JSONValue.string))

        let sent = try JSONValueDecoder().decode(WSRecordDictionary.self, from: try WSClientFixture.wire(json))
        let decoded = try fixture.translator.record(from: sent, defaultZone: .default)
        let outcome = try fixture.database.modifyRecords(
            ModifyRequest(
                records: [decoded], deletes: [], policy: .changedKeys, atomic: true, clientChangeTokenData: nil))
        _ = try #require(try outcome.saveResults.first?.1.get())
        let saved = try fixture.fetch(record.recordID)
        #expect(saved["a"] == nil)
        #expect(saved["b"] as? String == "kept")
        #expect(saved.parent == nil)
        let untouched = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "u"))
        #expect(fixture.translator.requestDictionary(for: untouched, keys: [])["parent"] == nil)
    }
}
