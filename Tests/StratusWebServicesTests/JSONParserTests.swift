import Foundation
import StratusWebServices
import Testing

/// ``JSONValue/parse(_:)-([UInt8])``: exact integers, doubles, strings, and malformed input
/// refused with the byte offset of the problem.
@Suite("JSON parser")
struct JSONParserTests {
    private func parse(_ text: String) throws -> JSONValue { try JSONValue.parse(text) }

    private func failure(_ text: String) -> JSONParseError? {
        do {
            _ = try JSONValue.parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func integersAreExactAtTheInt64Edges() throws {
        #expect(try parse("9223372036854775807") == .integer(.max))
        #expect(try parse("-9223372036854775808") == .integer(.min))
        #expect(try parse("9007199254740993") == .integer(9_007_199_254_740_993), "2^53 + 1, not a double")
        #expect(try parse("0") == .integer(0))
        #expect(try parse("-0") == .integer(0))
        #expect(try parse("[1,-2]") == .array([.integer(1), .integer(-2)]))
    }

    @Test func integersOutsideInt64AreRefusedNotRounded() {
        #expect(failure("9223372036854775808")?.offset == 0)
        #expect(failure("-9223372036854775809")?.reason.contains("64 bits") == true)
        #expect(failure("[1, 99999999999999999999]")?.offset == 4)
    }

    @Test func aFractionOrExponentMakesADouble() throws {
        #expect(try parse("1.0") == .double(1))
        #expect(try parse("1e3") == .double(1000))
        #expect(try parse("1E3") == .double(1000))
        #expect(try parse("-2.5e-3") == .double(-0.0025))
        #expect(try parse("1e+2") == .double(100))
        #expect(try parse("0.1") == .double(0.1))
        #expect(try parse("-0.0") == .double(-0.0))
        #expect(try parse("1.7976931348623157e308") == .double(.greatestFiniteMagnitude))
        #expect(try parse("5e-324") == .double(.leastNonzeroMagnitude))
        #expect(failure("1e400")?.reason.contains("out of range") == true)
    }

    @Test(arguments: [
        ("01", 1), ("-", 1), ("1.", 2), (".5", 0), ("1e", 2), ("1e+", 3), ("+1", 0), ("--1", 1),
        ("NaN", 0), ("Infinity", 0), ("0x10", 1), ("1.5.2", 3),
    ])
    func malformedNumbersAreRefusedAtTheirOffset(text: String, offset: Int) {
        #expect(failure(text)?.offset == offset, "\(text)")
    }

    @Test func stringsDecodeEscapesAndUnicode() throws {
        #expect(try parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{8}\u{C}\n\r\t"))
        #expect(try parse(#""\u00e9\u4e2d""#) == .string("é中"))
        #expect(try parse(#""\uD83D\uDE00""#) == .string("😀"), "a surrogate pair is one scalar")
        #expect(try parse(#""x\ud83d\ude00y""#) == .string("x😀y"))
        #expect(try parse("\"é😀\"") == .string("é😀"), "raw UTF-8")
        #expect(try parse(#""\u0000""#) == .string("\u{0}"))
    }

    @Test func loneSurrogatesAndBadEscapesAreRefused() {
        #expect(failure(#""\uDE00""#)?.reason.contains("lone low surrogate") == true)
        #expect(failure(#""ab\uD83D""#)?.offset == 3)
        #expect(failure(#""\uD83Dx""#)?.reason.contains("not followed by a low") == true)
        #expect(failure(#""\uD83D\u0041""#)?.reason.contains("not followed by a low") == true)
        #expect(failure(#""\u12G4""#)?.offset == 1)
        #expect(failure(#""\x""#)?.offset == 1)
        #expect(failure("\"a\u{1}\"")?.offset == 2, "raw control characters must be escaped")
        #expect(failure("\"abc")?.offset == 0, "unterminated, reported at its start")
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xFF, 0x22]) }
    }

    @Test func objectsAndArrays() throws {
        let value = try parse(#" { "a" : [ true , false , null ] , "b" : { } , "c" : [ ] } "#)
        #expect(
            value == .object(["a": .array([.bool(true), .bool(false), .null]), "b": .object([:]), "c": .array([])]))
        #expect(value["a"] == .array([true, false, nil]))
        #expect(value["missing"] == nil)
    }

    @Test(arguments: [
        ("{\"a\":1,}", 7), ("[1,]", 3), ("[1 2]", 3), ("{\"a\" 1}", 5), ("{a:1}", 1), ("{\"a\":1", 6),
        ("[", 1), ("", 0), ("   ", 3), ("tru", 0), ("nul", 0), ("[true false]", 6), ("{\"a\":1}x", 7),
        ("1 2", 2), ("[1]]", 3), ("{\"a\":1,\"a\":2}", 7), ("// c\n1", 0), ("'a'", 0),
    ])
    func malformedDocumentsAreRefusedAtTheirOffset(text: String, offset: Int) {
        let error = failure(text)
        #expect(error?.offset == offset, "\(text): \(String(describing: error))")
        #expect(error?.description.hasPrefix("Malformed JSON at byte offset \(offset): ") == true)
    }

    @Test func trailingGarbageIsNamed() {
        #expect(failure("{} x")?.reason == "unexpected 'x' after the JSON value")
        #expect(failure("1\u{0}")?.reason == "unexpected byte 0x00 after the JSON value")
        #expect(failure("{\"a\":1,\"a\":2}")?.reason == #"duplicate key "a""#)
    }

    @Test func nestingIsLimited() throws {
        let limit = JSONValue.maximumNestingDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(throws: Never.self) { try JSONValue.parse(deepest) }
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(failure(tooDeep)?.offset == limit)
        #expect(failure(tooDeep)?.reason.contains("nesting deeper than \(limit)") == true)
        let objects = String(repeating: "{\"a\":", count: limit + 1) + "1" + String(repeating: "}", count: limit + 1)
        #expect(failure(objects) != nil)
        // A hostile body much deeper than the limit fails quickly, not with a stack overflow.
        #expect(failure(String(repeating: "[", count: 1_000_000)) != nil)
    }

    @Test func numbersWrittenAsStrings() {
        #expect(JSONValue.number(fromString: "12") == .integer(12))
        #expect(JSONValue.number(fromString: "-1.5e3") == .double(-1500))
        #expect(JSONValue.number(fromString: "9223372036854775807") == .integer(.max))
        for bad in ["", " 1", "1 ", "NaN", "Infinity", "1e", "0x1", "[1]", "\"1\"", "+1", "1."] {
            #expect(JSONValue.number(fromString: bad) == nil, "\(bad)")
        }
    }

    @Test func dataAndBufferEntryPointsAgree() throws {
        let text = #"{"n":[1,2.5,"x"]}"#
        let expected = try parse(text)
        #expect(try JSONValue.parse(Data(text.utf8)) == expected)
        #expect(try JSONValue.parse(Array(text.utf8)) == expected)
    }
}
