import Foundation
import Stratus
import StratusWebServices
import Testing

/// Field dictionaries in: every type tag, inference, lists, `null`, and the values refused.
@Suite("Web Services fields in")
struct WSFieldInputTests {
    let translator = WSRecordTranslator(callerRecordName: "_caller")
    let zone = CKRecordZone.ID(zoneName: "Z")

    /// The record value of a field dictionary written as JSON.
    func value(_ json: String) throws -> (any CKRecordValue)? {
        let field = try JSONValueDecoder().decode(WSFieldDictionary.self, from: Array(json.utf8))
        return try translator.value(of: field, named: "f", zone: zone)
    }

    func reason(_ json: String) -> String? {
        do {
            _ = try value(json)
            return nil
        } catch let error as WSTranslationError {
            #expect(error.field == "f")
            return error.reason
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func strings() throws {
        #expect(try value(#"{"value": "héllo", "type": "STRING"}"#) as? String == "héllo")
        #expect(try value(#"{"value": ""}"#) as? String == "")
    }

    @Test func int64IsIntFromNumbersStringsAndBooleans() throws {
        #expect(try value(#"{"value": 9223372036854775807, "type": "INT64"}"#) as? Int == .max)
        #expect(try value(#"{"value": -9223372036854775808, "type": "INT64"}"#) as? Int == .min)
        #expect(try value(#"{"value": "9223372036854775807", "type": "INT64"}"#) as? Int == .max)
        #expect(try value(#"{"value": "-12", "type": "INT64"}"#) as? Int == -12)
        #expect(try value(#"{"value": true, "type": "INT64"}"#) as? Int == 1)
        #expect(try value(#"{"value": false, "type": "INT64"}"#) as? Int == 0)
        #expect(try value(#"{"value": 1e3, "type": "INT64"}"#) as? Int == 1000)
        #expect(try value(#"{"value": 7}"#) as? Int == 7, "inferred")
    }

    @Test func stratusNumberTypeReadsBackTheSavedSwiftType() throws {
        #expect(try value(#"{"value": 7, "type": "INT64", "stratusNumberType": "Int64"}"#) as? Int64 == 7)
        #expect(try value(#"{"value": 1, "type": "INT64", "stratusNumberType": "Bool"}"#) as? Bool == true)
        #expect(try value(#"{"value": 300, "type": "INT64", "stratusNumberType": "UInt8"}"#) as? UInt8 == 44)
        #expect(try value(#"{"value": 0.5, "type": "DOUBLE", "stratusNumberType": "Float"}"#) as? Float == 0.5)
        #expect(
            try value(#"{"value": [1, 0], "type": "INT64_LIST", "stratusNumberType": "Bool"}"#) as? [Bool] == [
                true, false,
            ])
        #expect(throws: WSTranslationError.self) {
            try value(#"{"value": 0.5, "type": "DOUBLE", "stratusNumberType": "Bool"}"#)
        }
        #expect(throws: WSTranslationError.self) {
            try value(#"{"value": 1, "type": "INT64", "stratusNumberType": "Int128"}"#)
        }
    }

    @Test func doublesFromNumbersAndStrings() throws {
        #expect(try value(#"{"value": 1.5, "type": "DOUBLE"}"#) as? Double == 1.5)
        #expect(try value(#"{"value": 2, "type": "DOUBLE"}"#) as? Double == 2)
        #expect(try value(#"{"value": "2.5e-1", "type": "DOUBLE"}"#) as? Double == 0.25)
        #expect(try value(#"{"value": "-3", "type": "DOUBLE"}"#) as? Double == -3)
        #expect(try value(#"{"value": 1.0}"#) as? Double == 1, "1.0 infers DOUBLE")
        #expect(try value(#"{"value": 1e2}"#) as? Double == 100, "an exponent infers DOUBLE")
    }

    @Test func bytesFromBase64() throws {
        #expect(try value(#"{"value": "AQID/w==", "type": "BYTES"}"#) as? Data == Data([1, 2, 3, 255]))
        #expect(try value(#"{"value": "AQID/w", "type": "BYTES"}"#) as? Data == Data([1, 2, 3, 255]), "unpadded")
        #expect(try value(#"{"value": "", "type": "BYTES"}"#) as? Data == Data())
    }

    @Test func timestampsFromMilliseconds() throws {
        let date = try #require(try value(#"{"value": 1700000000123, "type": "TIMESTAMP"}"#) as? Date)
        #expect(WSRecordTranslator.milliseconds(date) == 1_700_000_000_123)
        #expect(try value(#"{"value": -1, "type": "TIMESTAMP"}"#) as? Date == Date(timeIntervalSince1970: -0.001))
    }

    @Test func references() throws {
        let plain = try #require(
            try value(#"{"value": {"recordName": "a"}, "type": "REFERENCE"}"#) as? CKRecord.Reference)
        #expect(plain.recordID == CKRecord.ID(recordName: "a", zoneID: zone), "no zoneID: the record's zone")
        #expect(plain.action == .none)
        let full = try #require(
            try value(
                #"{"value": {"recordName": "b", "action": "DELETE_SELF", "zoneID": {"zoneName": "Y", "ownerRecordName": "_o"}}}"#
            ) as? CKRecord.Reference)
        #expect(full.recordID == CKRecord.ID(recordName: "b", zoneID: CKRecordZone.ID(zoneName: "Y", ownerName: "_o")))
        #expect(full.action == .deleteSelf)
        let own = try #require(
            try value(
                #"{"value": {"recordName": "c", "action": "NONE", "zoneID": {"zoneName": "Y", "ownerRecordName": "_caller"}}}"#
            )
                as? CKRecord.Reference)
        #expect(own.recordID.zoneID.ownerName == CKCurrentUserDefaultName, "the caller's own name is the default owner")
    }

    @Test func locations() throws {
        let json = #"""
            {"value": {"latitude": 48.85, "longitude": 2.35, "altitude": 35, "horizontalAccuracy": 5,
             "verticalAccuracy": 3.5, "speed": 1.25, "course": 90, "timestamp": 1700000000000}, "type": "LOCATION"}
            """#
        let location = try #require(try value(json) as? CLLocation)
        #expect(location.coordinate == CLLocationCoordinate2D(latitude: 48.85, longitude: 2.35))
        #expect(location.altitude == 35)
        #expect(location.horizontalAccuracy == 5)
        #expect(location.verticalAccuracy == 3.5)
        #expect(location.speed == 1.25)
        #expect(location.course == 90)
        #expect(location.timestamp == Date(timeIntervalSince1970: 1_700_000_000))
        let minimal = try #require(try value(#"{"value": {"latitude": -1, "longitude": 1}}"#) as? CLLocation)
        #expect(minimal.coordinate.latitude == -1)
        #expect(minimal.verticalAccuracy == -1)
        #expect(minimal.course == -1)
        #expect(minimal.speed == -1)
    }

    @Test func typedLists() throws {
        #expect(try value(#"{"value": ["a", "b"], "type": "STRING_LIST"}"#) as? [String] == ["a", "b"])
        #expect(try value(#"{"value": [1, "2", true], "type": "INT64_LIST"}"#) as? [Int] == [1, 2, 1])
        #expect(try value(#"{"value": [1, 2.5, "3"], "type": "DOUBLE_LIST"}"#) as? [Double] == [1, 2.5, 3])
        #expect(try value(#"{"value": ["AQ==", "Ag"], "type": "BYTES_LIST"}"#) as? [Data] == [Data([1]), Data([2])])
        #expect(
            try value(#"{"value": [0, 1000], "type": "TIMESTAMP_LIST"}"#) as? [Date] == [
                Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1),
            ])
        let refs = try #require(
            try value(#"{"value": [{"recordName": "a"}], "type": "REFERENCE_LIST"}"#) as? [CKRecord.Reference])
        #expect(refs.map(\.recordID.recordName) == ["a"])
        let places = try #require(
            try value(#"{"value": [{"latitude": 1, "longitude": 2}], "type": "LOCATION_LIST"}"#) as? [CLLocation])
        #expect(places.map(\.coordinate.longitude) == [2])
        #expect(try value(#"{"value": [], "type": "INT64_LIST"}"#) as? [Int64] == [])
    }

    @Test func untypedListsTakeTheirFirstItemsType() throws {
        #expect(try value(#"{"value": ["a", "b"]}"#) as? [String] == ["a", "b"])
        #expect(try value(#"{"value": [1, 2], "type": "LIST"}"#) as? [Int] == [1, 2])
        #expect(try value(#"{"value": [1.5, 2.0]}"#) as? [Double] == [1.5, 2])
        #expect(try value(#"{"value": [{"recordName": "a"}]}"#) as? [CKRecord.Reference] != nil)
        #expect(try value(#"{"value": [{"latitude": 1, "longitude": 2}]}"#) as? [CLLocation] != nil)
        let empty = try value(#"{"value": []}"#)
        #expect((empty as? [String])?.isEmpty == true, "an empty list is an empty list")
    }

    @Test func nullClearsAField() throws {
        #expect(try value(#"{"value": null}"#) == nil)
        #expect(try value(#"{"value": null, "type": "INT64"}"#) == nil)
    }

    @Test(arguments: [
        (#"{"value": 1, "type": "NUMBER"}"#, "Field 'f': unknown type 'NUMBER' (the types are STRING, INT64, "),
        (#"{"value": 1, "type": "STRING"}"#, "Field 'f' (STRING): expected a string, found an integer (1)"),
        (#"{"value": 1.5, "type": "INT64"}"#, "Field 'f' (INT64): a decimal number (1.5) is not a whole number"),
        (
            #"{"value": "x", "type": "INT64"}"#,
            #"Field 'f' (INT64): expected an integer or an integer string, found a string ("x")"#
        ),
        (#"{"value": "1.5", "type": "INT64"}"#, "Field 'f' (INT64): a decimal number (1.5) is not a whole number"),
        (
            #"{"value": 1e19, "type": "INT64"}"#,
            "Field 'f' (INT64): a decimal number (1e+19) is not a whole number in INT64's range"
        ),
        (
            #"{"value": true, "type": "DOUBLE"}"#,
            "Field 'f' (DOUBLE): expected a number or a numeric string, found a boolean"
        ),
        (#"{"value": "NaN", "type": "DOUBLE"}"#, "Field 'f' (DOUBLE): non-finite numbers are not accepted"),
        (#"{"value": "-Infinity", "type": "DOUBLE"}"#, "Field 'f' (DOUBLE): non-finite numbers are not accepted"),
        (
            #"{"value": "Infinity", "type": "DOUBLE_LIST"}"#,
            "Field 'f' (DOUBLE_LIST): expected an array, found a string"
        ),
        (
            #"{"value": ["1", "NaN"], "type": "DOUBLE_LIST"}"#,
            "Field 'f' (DOUBLE_LIST): item 1: non-finite numbers are not accepted"
        ),
        (#"{"value": "***", "type": "BYTES"}"#, #"Field 'f' (BYTES): a string ("***") is not valid base64"#),
        (#"{"value": 1, "type": "BYTES"}"#, "Field 'f' (BYTES): expected a base64 string, found an integer (1)"),
        (
            #"{"value": "2020-01-01", "type": "TIMESTAMP"}"#,
            "Field 'f' (TIMESTAMP): expected milliseconds since 1970 as a number"
        ),
        (
            #"{"value": "a", "type": "REFERENCE"}"#,
            "Field 'f' (REFERENCE): expected a reference {recordName, zoneID?, action}"
        ),
        (
            #"{"value": {"action": "NONE"}, "type": "REFERENCE"}"#,
            "Field 'f' (REFERENCE): a reference needs recordName, a string"
        ),
        (
            #"{"value": {"recordName": "a", "action": "VALIDATE"}}"#,
            "Field 'f' (REFERENCE, inferred): the reference action VALIDATE is not supported"
        ),
        (
            #"{"value": {"recordName": "a", "action": "CASCADE"}}"#,
            "Field 'f' (REFERENCE, inferred): unknown reference action 'CASCADE'"
        ),
        (
            #"{"value": {"recordName": "a", "zoneID": {}}}"#,
            "Field 'f' (REFERENCE, inferred): a reference's zoneID needs zoneName"
        ),
        (
            #"{"value": {"longitude": 1}, "type": "LOCATION"}"#,
            "Field 'f' (LOCATION): a location needs latitude, a number"
        ),
        (
            #"{"value": {"latitude": "north", "longitude": 1}}"#,
            #"Field 'f' (LOCATION, inferred): latitude: expected a number or a numeric string, found a string ("north")"#
        ),
        (#"{"value": {"receipt": "r"}}"#, "Field 'f' (ASSET, inferred): assets need a receipt from this server"),
        (#"{"value": {"receipt": "r"}, "type": "ASSET"}"#, "Field 'f' (ASSET): assets need a receipt from this server"),
        (
            #"{"value": {"receipt": "r"}, "type": "ASSETID"}"#,
            "Field 'f' (ASSETID): assets need a receipt from this server"
        ),
        (
            #"{"value": [{"receipt": "r"}], "type": "ASSET_LIST"}"#,
            "Field 'f' (ASSET_LIST): item 0: assets need a receipt from this server"
        ),
        (#"{"value": {"x": 1}}"#, "Field 'f' (no type given): cannot infer a type from an object without recordName"),
        (#"{"value": [1, "a"]}"#, "Field 'f' (LIST, inferred): a list mixing INT64 and STRING items (item 1)"),
        (#"{"value": [1, 2.5], "type": "LIST"}"#, "Field 'f' (LIST): a list mixing INT64 and DOUBLE items (item 1)"),
        (#"{"value": [[1]]}"#, "Field 'f' (LIST, inferred): item 0 is a list: lists cannot hold lists"),
        (#"{"value": ["a", null]}"#, "Field 'f' (LIST, inferred): item 1: null has no type"),
        (
            #"{"value": ["a", 1], "type": "STRING_LIST"}"#,
            "Field 'f' (STRING_LIST): item 1: expected a string, found an integer (1)"
        ),
        (#"{"value": "a", "type": "LIST"}"#, #"Field 'f' (LIST): expected an array, found a string ("a")"#),
        (
            #"{"value": [1], "type": "INT64"}"#,
            "Field 'f' (INT64): expected an integer or an integer string, found an array"
        ),
    ])
    func refusedValuesNameTheFieldAndTag(json: String, expectedPrefix: String) {
        let reason = reason(json)
        #expect(reason?.hasPrefix(expectedPrefix) == true, "\(reason ?? "no error")")
    }
}
