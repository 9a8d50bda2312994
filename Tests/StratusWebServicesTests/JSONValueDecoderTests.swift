import StratusWebServices
import Testing

/// ``JSONValueDecoder``: request types decode from parsed JSON, and errors name the JSON path.
@Suite("JSON value decoder")
struct JSONValueDecoderTests {
    struct Body: Decodable, Equatable {
        struct Operation: Decodable, Equatable {
            var operationType: String
            var record: WSRecordDictionary
        }
        var operations: [Operation]
        var atomic: Bool?
        var resultsLimit: Int?
        var ratio: Double?
        var tags: [String]?
    }

    private func decode(_ text: String) throws -> Body {
        try JSONValueDecoder().decode(Body.self, from: Array(text.utf8))
    }

    private func error(_ text: String) -> JSONDecodeError? {
        do {
            _ = try decode(text)
            return nil
        } catch {
            return error as? JSONDecodeError
        }
    }

    @Test func decodesARequestKeepingFieldValuesExact() throws {
        let body = try decode(
            #"""
            {"operations": [{"operationType": "create", "unknown": 1, "record": {"recordType": "T",
              "fields": {"n": {"value": 9223372036854775807}, "d": {"value": 1.0, "type": "DOUBLE"},
                         "gone": {"value": null}},
              "zoneID": {"zoneName": "Z", "ownerRecordName": "_u"}, "parent": null}}],
             "atomic": true, "resultsLimit": 1e2, "ratio": 3, "tags": ["a", "b"]}
            """#)
        let record = try #require(body.operations.first?.record)
        #expect(record.fields?["n"] == WSFieldDictionary(value: .integer(.max)))
        #expect(record.fields?["d"] == WSFieldDictionary(value: .double(1), type: "DOUBLE"))
        #expect(record.fields?["gone"]?.value == .null)
        #expect(record.zoneID == WSZoneID(zoneName: "Z", ownerRecordName: "_u"))
        #expect(record.parent == .null, "null parent is kept: it clears the parent")
        #expect(record.recordName == nil)
        #expect(body.atomic == true)
        #expect(body.resultsLimit == 100)
        #expect(body.ratio == 3)
        #expect(body.tags == ["a", "b"])
    }

    @Test func anAbsentParentIsNil() throws {
        let body = try decode(#"{"operations": [{"operationType": "x", "record": {"recordType": "T"}}]}"#)
        #expect(body.operations[0].record.parent == nil)
        #expect(body.atomic == nil)
    }

    @Test(arguments: [
        (
            #"{"operations": [{"operationType": "a", "record": {}}, {"record": {}}]}"#,
            "operations[1].operationType", "is required"
        ),
        (
            #"{"operations": [{"operationType": "a", "record": {"fields": {"title": {"type": "STRING"}}}}]}"#,
            "operations[0].record.fields.title.value", "is required"
        ),
        (
            #"{"operations": [{"operationType": "a", "record": {"fields": {"title": {"value": 1, "type": 3}}}}]}"#,
            "operations[0].record.fields.title.type", "expected a string, found an integer (3)"
        ),
        (
            #"{"operations": [{"operationType": "a", "record": {"zoneID": {"zoneName": null}}}]}"#,
            "operations[0].record.zoneID.zoneName", "expected a string, found null"
        ),
        (
            #"{"operations": [{"operationType": "a", "record": {"fields": {"7": {}}}}]}"#,
            "operations[0].record.fields.7.value", "is required"
        ),
        (#"{"operations": {}}"#, "operations", "expected an array, found an object"),
        (
            #"{"operations": [], "resultsLimit": 1.5}"#, "resultsLimit",
            "a decimal number (1.5) is not a whole number in range for Int"
        ),
        (#"{"operations": [], "atomic": "yes"}"#, "atomic", #"expected a boolean, found a string ("yes")"#),
        (#"{"operations": [], "tags": ["a", 2]}"#, "tags[1]", "expected a string, found an integer (2)"),
        (#"[]"#, "", "expected an object, found an array"),
    ])
    func errorsNameTheJSONPath(text: String, path: String, reason: String) {
        let failure = error(text)
        #expect(failure?.path == path)
        #expect(failure?.reason == reason)
        #expect(failure?.description == (path.isEmpty ? reason : "\(path): \(reason)"))
    }

    @Test func malformedJSONIsAParseError() {
        #expect(throws: JSONParseError(offset: 14, reason: "unexpected 'x', expected a value")) {
            try JSONValueDecoder().decode(Body.self, from: Array(#"{"operations":x"#.utf8))
        }
    }
}
