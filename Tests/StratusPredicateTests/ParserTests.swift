import Foundation
import StratusPredicate
import Testing

@Suite("Parsing")
struct ParserTests {
    @Test(
        "Every comparison operator spelling",
        arguments: [
            ("=", PredicateOperator.equalTo), ("==", .equalTo), ("!=", .notEqualTo), ("<>", .notEqualTo),
            ("<", .lessThan), ("<=", .lessThanOrEqualTo), ("=<", .lessThanOrEqualTo),
            (">", .greaterThan), (">=", .greaterThanOrEqualTo), ("=>", .greaterThanOrEqualTo),
        ])
    func operators(spelling: String, expected: PredicateOperator) throws {
        #expect(try parse("age \(spelling) 3") == comparison(key("age"), expected, value(.int(3))))
        #expect(try parse("age\(spelling)3") == comparison(key("age"), expected, value(.int(3))))
    }

    @Test func literals() throws {
        #expect(try parse("name == 'Bob'") == comparison(key("name"), .equalTo, value(.string("Bob"))))
        #expect(try parse("name == \"Bob\"") == comparison(key("name"), .equalTo, value(.string("Bob"))))
        #expect(try parse("name == 'it\\'s \"x\"'") == comparison(key("name"), .equalTo, value(.string("it's \"x\""))))
        #expect(try parse("name == 'caf\\u00e9\\n'") == comparison(key("name"), .equalTo, value(.string("café\n"))))
        #expect(try parse("n == -42") == comparison(key("n"), .equalTo, value(.int(-42))))
        #expect(try parse("n == 0x1F") == comparison(key("n"), .equalTo, value(.int(31))))
        #expect(try parse("n == 2.5") == comparison(key("n"), .equalTo, value(.double(2.5))))
        #expect(try parse("n == 1e3") == comparison(key("n"), .equalTo, value(.double(1000))))
        #expect(try parse("n == -0.5") == comparison(key("n"), .equalTo, value(.double(-0.5))))
        #expect(try parse("n == -9223372036854775808") == comparison(key("n"), .equalTo, value(.int(.min))))
        #expect(try parse("n == 9223372036854775807") == comparison(key("n"), .equalTo, value(.int(.max))))
        for (word, flag) in [("TRUE", true), ("yes", true), ("False", false), ("NO", false)] {
            #expect(try parse("flag == \(word)") == comparison(key("flag"), .equalTo, value(.bool(flag))))
        }
        #expect(try parse("x == nil") == comparison(key("x"), .equalTo, value(.null)))
        #expect(try parse("x == NULL") == comparison(key("x"), .equalTo, value(.null)))
        #expect(
            try parse("d == CAST(0, 'NSDate')")
                == comparison(key("d"), .equalTo, value(.date(Date(timeIntervalSinceReferenceDate: 0)))))
    }

    @Test func aggregatesFoldToLists() throws {
        #expect(
            try parse("color IN {'red', 'green'}")
                == comparison(key("color"), .in, value(.list([.string("red"), .string("green")]))))
        #expect(try parse("color IN {}") == comparison(key("color"), .in, value(.list([]))))
        #expect(
            try parse("n BETWEEN {1, 2.5}") == comparison(key("n"), .between, value(.list([.int(1), .double(2.5)]))))
        #expect(
            try parse("d BETWEEN {%@, now()}", Date(timeIntervalSince1970: 0))
                == comparison(key("d"), .between, .aggregate([value(.date(Date(timeIntervalSince1970: 0))), .now])))
    }

    @Test func stringOperatorsAndModifiers() throws {
        #expect(try parse("name BEGINSWITH 'Bo'") == comparison(key("name"), .beginsWith, value(.string("Bo"))))
        #expect(
            try parse("name beginswith[c] 'bo'")
                == comparison(key("name"), .beginsWith, value(.string("bo")), .direct, .caseInsensitive))
        #expect(
            try parse("name ==[cd] 'bo'")
                == comparison(
                    key("name"), .equalTo, value(.string("bo")), .direct, [.caseInsensitive, .diacriticInsensitive]))
        #expect(
            try parse("name =[d] 'bo'")
                == comparison(key("name"), .equalTo, value(.string("bo")), .direct, .diacriticInsensitive))
        #expect(try parse("name ENDSWITH 'b'") == comparison(key("name"), .endsWith, value(.string("b"))))
        #expect(try parse("name LIKE 'b*'") == comparison(key("name"), .like, value(.string("b*"))))
        #expect(try parse("name MATCHES 'b.*'") == comparison(key("name"), .matches, value(.string("b.*"))))
    }

    @Test func membershipForms() throws {
        #expect(
            try parse("favoriteColors CONTAINS 'red'")
                == comparison(key("favoriteColors"), .contains, value(.string("red"))))
        #expect(try parse("'red' IN favoriteColors") == comparison(value(.string("red")), .in, key("favoriteColors")))
        #expect(
            try parse("ANY favoriteColors = 'red'")
                == comparison(key("favoriteColors"), .equalTo, value(.string("red")), .any))
        #expect(
            try parse("SOME favoriteColors = 'red'")
                == comparison(key("favoriteColors"), .equalTo, value(.string("red")), .any))
        #expect(
            try parse("ANY favoriteColors BEGINSWITH 'r'")
                == comparison(key("favoriteColors"), .beginsWith, value(.string("r")), .any))
        #expect(
            try parse("ANY { 'red', 'green' } = favoriteColor")
                == comparison(value(.list([.string("red"), .string("green")])), .equalTo, key("favoriteColor"), .any))
        #expect(try parse("ALL tags = 'x'") == comparison(key("tags"), .equalTo, value(.string("x")), .all))
        #expect(try parse("NONE tags = 'x'") == .not(comparison(key("tags"), .equalTo, value(.string("x")), .any)))
        #expect(
            try parse("%K CONTAINS %@", "favoriteColors", "red")
                == comparison(key("favoriteColors"), .contains, value(.string("red"))))
    }

    @Test func selfAndTokenSearch() throws {
        #expect(
            try parse("self CONTAINS 'bob smith'")
                == comparison(.evaluatedObject, .contains, value(.string("bob smith"))))
        #expect(try parse("SELF contains 'bob'") == comparison(.evaluatedObject, .contains, value(.string("bob"))))
        #expect(try parse("SELF.name == 'x'") == comparison(key("name"), .equalTo, value(.string("x"))))
    }

    @Test func logicAndPrecedence() throws {
        let a = comparison(key("a"), .equalTo, value(.int(1)))
        let b = comparison(key("b"), .equalTo, value(.int(2)))
        let c = comparison(key("c"), .equalTo, value(.int(3)))
        #expect(try parse("a = 1 AND b = 2 AND c = 3") == .and([a, b, c]))
        #expect(try parse("a = 1 && b = 2 && c = 3") == .and([a, b, c]))
        #expect(try parse("a = 1 and (b = 2 and c = 3)") == .and([a, b, c]))
        #expect(try parse("a = 1 OR b = 2 AND c = 3") == .or([a, .and([b, c])]))
        #expect(try parse("a = 1 || b = 2") == .or([a, b]))
        #expect(try parse("NOT a = 1") == .not(a))
        #expect(try parse("!a = 1 AND b = 2") == .and([.not(a), b]))
        #expect(try parse("not (a = 1 AND b = 2)") == .not(.and([a, b])))
        #expect(try parse("((((a = 1))))") == a)
        #expect(try parse("(a = 1 AND (b = 2 OR (c = 3)))") == .and([a, .or([b, c])]))
        #expect(try parse("TRUEPREDICATE") == .true)
        #expect(try parse("falsepredicate") == .false)
        #expect(try parse("TRUEPREDICATE AND a = 1") == .and([.true, a]))
    }

    @Test func keywordsAreCaseInsensitive() throws {
        let expected = QueryPredicate.and([
            comparison(key("tags"), .contains, value(.string("x")), .any),
            .not(comparison(key("n"), .between, value(.list([.int(1), .int(2)])))),
        ])
        #expect(try parse("ANY tags CONTAINS 'x' AND NOT n BETWEEN {1, 2}") == expected)
        #expect(try parse("any tags contains 'x' and not n between {1, 2}") == expected)
        #expect(try parse("Any tags Contains 'x' And Not n Between {1, 2}") == expected)
    }

    @Test func keysAndKeyPaths() throws {
        #expect(try parse("owner.name == 'x'") == comparison(key("owner.name"), .equalTo, value(.string("x"))))
        #expect(try parse("#size > 3") == comparison(key("size"), .greaterThan, value(.int(3))))
        #expect(try parse("#in == 3") == comparison(key("in"), .equalTo, value(.int(3))))
        #expect(try parse("_private_1 == 3") == comparison(key("_private_1"), .equalTo, value(.int(3))))
        #expect(try parse("%K == 3", "owner.name") == comparison(key("owner.name"), .equalTo, value(.int(3))))
    }

    @Test func functions() throws {
        let paris = PredicateValue.location(latitude: 48.8566, longitude: 2.3522)
        #expect(
            try parse("distanceToLocation:fromLocation:(location, %@) < 10", paris)
                == comparison(.distance(key("location"), value(paris)), .lessThan, value(.int(10))))
        #expect(
            try parse("distanceToLocation:fromLocation:(%K, %@) <= %f", "where", paris, 2.5)
                == comparison(.distance(key("where"), value(paris)), .lessThanOrEqualTo, value(.double(2.5))))
        #expect(try parse("modified < now()") == comparison(key("modified"), .lessThan, .now))
        #expect(try parse("modified < NOW( )") == comparison(key("modified"), .lessThan, .now))
    }

    @Test func descriptionParsesBack() throws {
        let formats = [
            "name ==[cd] 'Bob' AND age > 3",
            "NOT (a = 1 AND b = 2)",
            "ANY tags BEGINSWITH 'x' OR tags CONTAINS {'a', 'b'}",
            "NONE tags = 'x'",
            "#size BETWEEN {1, 2.5} AND flag == YES AND x == nil",
            "self CONTAINS 'he said \"hi\"\\\\'",
            "modified < now() AND d == CAST(12.5, 'NSDate')",
            "n IN {-9223372036854775808, 9223372036854775807, -1.5e-07}",
        ]
        for format in formats {
            let expression = try parse(format)
            #expect(try parse(expression.description) == expression, "\(format) → \(expression)")
        }
        let withDate = try parse("modified > %@", Date(timeIntervalSinceReferenceDate: 1234.5))
        #expect(withDate.description == "modified > CAST(1234.5, \"NSDate\")")
        #expect(try parse(withDate.description) == withDate)
    }
}
