import Foundation
import StratusPredicate
import Testing

/// A stand-in for `CLLocation`: an `NSObject` made `CVarArg` that converts itself.
final class TestLocation: NSObject, PredicateArgumentObject, PredicateValueConvertible {
    let latitude: Double
    let longitude: Double

    init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    var predicateValue: PredicateValue { .location(latitude: latitude, longitude: longitude) }
}

/// A stand-in for `CKRecord.Reference`.
final class TestReference: NSObject, PredicateArgumentObject, PredicateValueConvertible {
    let recordName: String

    init(_ recordName: String) {
        self.recordName = recordName
    }

    var predicateValue: PredicateValue {
        .reference(recordName: recordName, zoneName: "_defaultZone", ownerName: "__defaultOwner__")
    }
}

@Suite("Arguments")
struct ArgumentTests {
    @Test func integerAndFloatSpecifiers() throws {
        for specifier in ["%d", "%i", "%ld", "%lld", "%lu", "%u", "%qd", "%hd"] {
            #expect(try parse("n == \(specifier)", 7) == comparison(key("n"), .equalTo, value(.int(7))), "\(specifier)")
        }
        #expect(try parse("n == %d", true) == comparison(key("n"), .equalTo, value(.int(1))))
        #expect(try parse("n == %d", Int8(-3)) == comparison(key("n"), .equalTo, value(.int(-3))))
        #expect(try parse("n == %lu", UInt64(5)) == comparison(key("n"), .equalTo, value(.int(5))))
        for specifier in ["%f", "%lf", "%g", "%e"] {
            #expect(
                try parse("n < \(specifier)", 2.5) == comparison(key("n"), .lessThan, value(.double(2.5))),
                "\(specifier)")
        }
        #expect(try parse("n < %f", 2) == comparison(key("n"), .lessThan, value(.double(2))))
        #expect(try parse("n < %f", Float(0.5)) == comparison(key("n"), .lessThan, value(.double(0.5))))
        #expect(try parse("n < %f", CGFloat(10)) == comparison(key("n"), .lessThan, value(.double(10))))
        #expect(try parse("name == %s", "x") == comparison(key("name"), .equalTo, value(.string("x"))))
    }

    @Test func objectSpecifierValues() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let bytes = Data([1, 2, 3])
        let cases: [(Any, PredicateValue)] = [
            ("s", .string("s")),
            ("s" as NSString, .string("s")),
            (Substring("sub"), .string("sub")),
            (42, .int(42)),
            (Int32(-1), .int(-1)),
            (UInt8(200), .int(200)),
            (UInt64.max, .double(Double(UInt64.max))),
            (2.5, .double(2.5)),
            (true, .bool(true)),
            (NSNumber(value: true), .bool(true)),
            (NSNumber(value: false), .bool(false)),
            (NSNumber(value: 1), .int(1)),
            (NSNumber(value: 0), .int(0)),
            (NSNumber(value: 2.5), .double(2.5)),
            (NSNumber(value: Float(0.5)), .double(0.5)),
            (NSNumber(value: Int64.min), .int(Int64.min)),
            (date, .date(date)),
            (NSDate(timeIntervalSince1970: 1_700_000_000), .date(date)),
            (bytes, .bytes(bytes)),
            (NSData(data: bytes), .bytes(bytes)),
            (NSNull(), .null),
            (Optional<String>.none as Any, .null),
            (Optional<String>.some("x") as Any, .string("x")),
            (["a", "b"], .list([.string("a"), .string("b")])),
            ([1, 2], .list([.int(1), .int(2)])),
            (["a", 1, true] as [Any], .list([.string("a"), .int(1), .bool(true)])),
            (NSArray(array: ["a", 1]), .list([.string("a"), .int(1)])),
            (Set([3, 1, 2]), .list([.int(1), .int(2), .int(3)])),
            (NSSet(array: ["b", "a"]), .list([.string("a"), .string("b")])),
            ([[1], [2]], .list([.list([.int(1)]), .list([.int(2)])])),
            (
                TestReference("r1"),
                .reference(recordName: "r1", zoneName: "_defaultZone", ownerName: "__defaultOwner__")
            ),
            (TestLocation(latitude: 1, longitude: 2), .location(latitude: 1, longitude: 2)),
            (PredicateValue.bytes(Data([9])), .bytes(Data([9]))),
        ]
        for (argument, expected) in cases {
            #expect(
                try parse("x == %@", argument) == comparison(key("x"), .equalTo, value(expected)),
                "\(type(of: argument))")
            #expect(try PredicateValue(argument: argument) == expected)
        }
    }

    @Test func variadicCVarArgsAreReadBackAsValues() throws {
        let date = Date(timeIntervalSince1970: 1_600_000_000)
        let data = Data([0xCA, 0xFE])
        let predicate = NSPredicate(
            format:
                "modified > %@ AND blob == %@ AND tags CONTAINS %@ AND n IN %@ AND ok == %@ AND owner == %@ AND %K < %f",
            date, data, ["a", "b"], [1, 2], true, TestReference("r"), "score", 1.5
        )
        let expression = try #require(predicate.stratusExpression)
        #expect(
            expression
                == .and([
                    comparison(key("modified"), .greaterThan, value(.date(date))),
                    comparison(key("blob"), .equalTo, value(.bytes(data))),
                    comparison(key("tags"), .contains, value(.list([.string("a"), .string("b")]))),
                    comparison(key("n"), .in, value(.list([.int(1), .int(2)]))),
                    comparison(key("ok"), .equalTo, value(.bool(true))),
                    comparison(
                        key("owner"), .equalTo,
                        value(.reference(recordName: "r", zoneName: "_defaultZone", ownerName: "__defaultOwner__"))),
                    comparison(key("score"), .lessThan, value(.double(1.5))),
                ]))
        let nsValues = NSPredicate(
            format: "d == %@ AND b == %@ AND n == %@ AND s IN %@", NSDate(timeIntervalSince1970: 0), NSData(data: data),
            NSNumber(value: 3), Set(["x"]))
        #expect(nsValues.stratusParseError == nil)
    }

    @Test func cVarArgEncodingsStillFormat() {
        // The retroactive conformances keep String(format:) working: %@ prints descriptions.
        #expect(String(format: "%@|%@|%d", NSNumber(value: 3), "s", 5) == "3|s|5")
        #expect(String(format: "%@", Date(timeIntervalSince1970: 0)) == "1970-01-01 00:00:00 +0000")
        #expect(String(format: "%@", NSDate(timeIntervalSince1970: 0)) == "1970-01-01 00:00:00 +0000")
        #expect(String(format: "%@", Data([1, 2])) == "<0102>")
        #expect(String(format: "%@", [1, 2]).contains("2"))
        #expect(String(format: "%@", Set(["x"])).contains("x"))
        #expect(String(format: "%@ %@", NSArray(array: ["a"]), NSSet(array: ["b"])).contains("b"))
        #expect(String(format: "%@", TestReference("r")).contains("TestReference"))
        #expect(String(format: "%@", NSNull()).isEmpty == false)
    }

    @Test func tooFewArguments() {
        let error = parseError("a == %@ AND b == %@", 1)
        #expect(error?.code == .argument)
        #expect(error?.message.contains("Too few arguments") == true)
        #expect(error?.message.contains("%@") == true)
        #expect(error?.position == 17)
        #expect(parseError("a == %d")?.code == .argument)
        #expect(parseError("%K == 1")?.code == .argument)
    }

    @Test func extraArgumentsAreIgnored() throws {
        #expect(try parse("a == %@", 1, 2, 3) == comparison(key("a"), .equalTo, value(.int(1))))
    }

    @Test func wrongArgumentTypes() {
        let uuid = parseError("id == %@", UUID())
        #expect(uuid?.code == .argument)
        #expect(uuid?.message.contains("UUID") == true)
        let nested = parseError("id IN %@", [UUID()])
        #expect(nested?.message.contains("UUID") == true)
        let keyNotString = parseError("%K == 1", 5)
        #expect(keyNotString?.code == .argument)
        #expect(keyNotString?.message.contains("%K") == true)
        #expect(keyNotString?.message.contains("Int") == true)
        #expect(parseError("%K == 1", "")?.code == .argument)
        let integer = parseError("n == %d", 2.5)
        #expect(integer?.message.contains("integer") == true)
        #expect(integer?.message.contains("Double") == true)
        #expect(parseError("n == %f", "x")?.message.contains("number") == true)
        #expect(parseError("n == %s", 1)?.message.contains("string") == true)
    }

    @Test func quotedSpecifiersAreLiterals() throws {
        #expect(try parse("name == '%@'") == comparison(key("name"), .equalTo, value(.string("%@"))))
    }
}
