import Foundation
import Stratus
import StratusInMemory
import StratusWebServices
import Testing

/// Records through the engine: what a client sends is saved, fetched and answered as sent.
@Suite("Web Services records through the engine")
struct WSRecordEngineTests {
    let translator = WSRecordTranslator(callerRecordName: "_caller")

    @Test func aSavedAndFetchedRecordAnswersWithTheFieldsItWasSentWith() throws {
        let fields = #"""
            {"s": {"value": "x", "type": "STRING"}, "i": {"value": 9223372036854775807, "type": "INT64"},
             "d": {"value": 0.5, "type": "DOUBLE"}, "b": {"value": "AQID", "type": "BYTES"},
             "t": {"value": 1700000000123, "type": "TIMESTAMP"},
             "r": {"value": {"recordName": "other", "action": "NONE",
                             "zoneID": {"zoneName": "_defaultZone", "ownerRecordName": "_caller"}}, "type": "REFERENCE"},
             "l": {"value": {"latitude": 1.5, "longitude": -2.5, "altitude": 3.0, "horizontalAccuracy": 4.0,
                             "verticalAccuracy": 5.0, "speed": 6.0, "course": 7.0, "timestamp": 1600000000000},
                   "type": "LOCATION"},
             "sl": {"value": ["a", "b"], "type": "STRING_LIST"}, "il": {"value": [1, -2], "type": "INT64_LIST"},
             "e": {"value": [], "type": "LIST"}}
            """#
        let sent = try JSONValue.parse(#"{"recordName": "r", "recordType": "T", "fields": \#(fields)}"#)
        let request = try JSONValueDecoder().decode(WSRecordDictionary.self, from: sent)
        let record = try translator.record(from: request, defaultZone: .default)

        let engine = try Engine(backend: InMemoryBackend())
        let database = try engine.database(
            namespace: Namespace(container: "iCloud.json", environment: .development, owner: "_caller"), scope: .private
        )
        let outcome = try database.modifyRecords(
            ModifyRequest(records: [record], deletes: [], policy: .allKeys, atomic: true, clientChangeTokenData: nil))
        let saved = try #require(try outcome.saveResults.first?.1.get())
        let fetched = try #require(try database.fetchRecords([record.recordID], desiredKeys: nil).first?.1.get())

        let answer = translator.dictionary(for: fetched, numbersAsStrings: false, desiredKeys: nil)
        #expect(answer["fields"] == sent["fields"])
        #expect(answer["recordChangeTag"] == saved.recordChangeTag.map(JSONValue.string))
        #expect(answer["recordChangeTag"] != nil)
        #expect(answer["zoneID"] == ["zoneName": "_defaultZone", "ownerRecordName": "_caller"])
        #expect(answer["deleted"] == false)
        let created = try #require(fetched.creationDate)
        #expect(answer["created"]?["timestamp"] == .integer(WSRecordTranslator.milliseconds(created)))
        #expect(answer["created"]?["deviceID"] == "stratusd")
        #expect(answer["modified"]?["deviceID"] == "stratusd")
    }

    @Test func aNullFieldClearsWhatWasSaved() throws {
        let engine = try Engine(backend: InMemoryBackend())
        let database = try engine.database(
            namespace: Namespace(container: "iCloud.json", environment: .development, owner: "_caller"), scope: .private
        )
        func save(_ json: String) throws -> CKRecord {
            let request = try JSONValueDecoder().decode(WSRecordDictionary.self, from: Array(json.utf8))
            let record = try translator.record(from: request, defaultZone: .default)
            let outcome = try database.modifyRecords(
                ModifyRequest(
                    records: [record], deletes: [], policy: .changedKeys, atomic: true, clientChangeTokenData: nil))
            return try #require(try outcome.saveResults.first?.1.get())
        }
        _ = try save(#"{"recordName": "r", "recordType": "T", "fields": {"a": {"value": 1}, "b": {"value": "kept"}}}"#)
        _ = try save(#"{"recordName": "r", "recordType": "T", "fields": {"a": {"value": null}}}"#)
        let fetched = try #require(
            try database.fetchRecords([CKRecord.ID(recordName: "r")], desiredKeys: nil).first?.1.get())
        #expect(
            translator.dictionary(for: fetched, numbersAsStrings: false, desiredKeys: nil)["fields"]
                == ["b": ["value": "kept", "type": "STRING"]])
    }
}
