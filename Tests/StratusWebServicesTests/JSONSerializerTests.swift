import Foundation
import StratusWebServices
import Testing

/// ``JSONValue/serialized()``: compact, keys sorted, escapes, and a parse round trip that keeps
/// integers and doubles apart.
@Suite("JSON serializer")
struct JSONSerializerTests {
    @Test func writesCompactJSONWithSortedKeys() {
        let value: JSONValue = ["b": [1, 2.5, "x", nil, true], "a": ["z": false, "y": [:]]]
        #expect(value.serializedString() == #"{"a":{"y":{},"z":false},"b":[1,2.5,"x",null,true]}"#)
    }

    @Test func doublesKeepAFractionOrExponentSoTheyParseBackAsDoubles() throws {
        #expect(JSONValue.double(1).serializedString() == "1.0")
        #expect(JSONValue.double(-0.0).serializedString() == "-0.0")
        #expect(JSONValue.integer(1).serializedString() == "1")
        for d in [1.0, 0.1, 1e16, 1e-7, 123_456.789, -2.5e300, .leastNonzeroMagnitude, .greatestFiniteMagnitude] {
            #expect(try JSONValue.parse(JSONValue.double(d).serializedString()) == .double(d), "\(d)")
        }
        for i: Int64 in [.max, .min, 0, -1, 9_007_199_254_740_993] {
            #expect(try JSONValue.parse(JSONValue.integer(i).serializedString()) == .integer(i))
        }
    }

    /// Strings are escaped eight bytes at a time where none needs it: random strings with
    /// every kind of byte at every offset are written exactly as a byte-by-byte escape writes
    /// them, and parse back to themselves.
    @Test func escapingMatchesAByteByByteEscapeAtEveryOffset() throws {
        let alphabet: [String] = [
            "a", "Z", " ", "~", "\"", "\\", "\n", "\r", "\t", "\u{01}", "\u{1F}", "\u{7F}", "é", "😀", "\u{2028}",
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3_000 {
            let length = Int.random(in: 0...40, using: &generator)
            let string = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }.joined()
            let written = JSONValue.string(string).serializedString()
            #expect(written == Self.referenceEscape(string), "\(Array(string.utf8))")
            #expect(try JSONValue.parse(written) == .string(string))
        }
    }

    private static func referenceEscape(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    @Test func nonFiniteDoublesBecomeNull() {
        #expect(JSONValue.double(.nan).serializedString() == "null")
        #expect(JSONValue.double(.infinity).serializedString() == "null")
    }

    @Test func stringsAreEscapedMinimally() throws {
        let text = "q\"b\\n\nr\rt\tc\u{1}\u{1F}/é😀"
        let written = JSONValue.string(text).serializedString()
        #expect(written == #""q\"b\\n\nr\rt\tc\u0001\u001f/é😀""#)
        #expect(try JSONValue.parse(written) == .string(text))
    }

    @Test func roundTripsAMixedDocument() throws {
        let text = #"{"ops":[{"n":9223372036854775807,"d":1.5,"s":"\ud83d\ude00","e":[],"o":{}}],"z":null}"#
        let value = try JSONValue.parse(text)
        #expect(try JSONValue.parse(value.serialized()) == value)
        #expect(
            value.serializedString() == #"{"ops":[{"d":1.5,"e":[],"n":9223372036854775807,"o":{},"s":"😀"}],"z":null}"#)
    }

    @Test func codableThroughFoundationKeepsTheShape() throws {
        let value: JSONValue = ["a": [1, "x", true, nil], "b": 2.5]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONValue.parse(data) == value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
    }

    /// Not a benchmark gate: parses and writes a 4 MiB body once, so a pathological slowdown
    /// (quadratic string building, say) shows up as a slow test.
    @Test func parsesAndWritesALargeBody() throws {
        let record: JSONValue = [
            "recordName": "r", "recordType": "Item",
            "fields": ["title": ["value": "a fairly ordinary title", "type": "STRING"], "n": ["value": 12_345]],
        ]
        let body: JSONValue = [
            "operations": .array(Array(repeating: ["operationType": "create", "record": record], count: 30_000))
        ]
        let bytes = body.serialized()
        #expect(bytes.count > 4_000_000)
        let parsed = try JSONValue.parse(bytes)
        #expect(parsed == body)
    }
}
