import Foundation
import StratusPredicate
import Testing

@Suite("Evaluation")
struct EvaluationTests {
    static let bob = TestRecord([
        "name": .string("Bob Smith"),
        "city": .string("Zürich"),
        "street": .string("Straße"),
        "age": .int(42),
        "score": .double(2.5),
        "active": .bool(true),
        "born": .date(Date(timeIntervalSince1970: 0)),
        "blob": .bytes(Data([1, 2])),
        "favoriteColors": .list([.string("Red"), .string("green")]),
        "favoriteColor": .string("Green"),
        "lucky": .list([.int(3), .int(7)]),
        "owner": .reference(recordName: "alice", zoneName: "_defaultZone", ownerName: "__defaultOwner__"),
        "note": .null,
    ])

    @Test(
        "String equality is case-insensitive",
        arguments: [
            ("name == 'bob smith'", true),
            ("name == 'BOB SMITH'", true),
            ("name = 'Bob Smith'", true),
            ("name == 'Bob'", false),
            ("name != 'bob smith'", false),
            ("name != 'alice'", true),
            ("name <> 'BOB SMITH'", false),
            ("name IN {'alice', 'BOB smith'}", true),
            ("name IN {'alice'}", false),
            ("city == 'zürich'", true),
            ("city == 'zurich'", false),
            ("city ==[d] 'zurich'", true),
            ("city ==[cd] 'ZURICH'", true),
            ("city == 'ZÜRICH'", true),
            ("street == 'STRASSE'", true),
            ("street IN {'strasse'}", true),
        ])
    func stringEquality(format: String, expected: Bool) {
        #expect(matches(format, in: Self.bob) == expected, "\(format)")
    }

    @Test(
        "BEGINSWITH is case-sensitive unless [c]",
        arguments: [
            ("name BEGINSWITH 'Bob'", true),
            ("name BEGINSWITH 'bob'", false),
            ("name BEGINSWITH 'Bob Smith'", true),
            ("name BEGINSWITH 'Bob Smithy'", false),
            ("name BEGINSWITH ''", true),
            ("name BEGINSWITH[c] 'bob'", true),
            ("city BEGINSWITH 'Zu'", false),
            ("city BEGINSWITH[d] 'Zu'", true),
            ("ANY favoriteColors BEGINSWITH 'Re'", true),
            ("ANY favoriteColors BEGINSWITH 're'", false),
            ("ANY favoriteColors BEGINSWITH 'gr'", true),
            ("age BEGINSWITH '4'", false),
        ])
    func beginsWith(format: String, expected: Bool) {
        #expect(matches(format, in: Self.bob) == expected, "\(format)")
    }

    @Test(
        "String ordering is case-sensitive",
        arguments: [
            ("name > 'Bob'", true),
            ("name < 'a'", true),  // "B" < "a" by scalar value
            ("name > 'a'", false),
            ("name >[c] 'a'", true),
            ("name BETWEEN {'A', 'C'}", true),
            ("name BETWEEN {'a', 'c'}", false),
        ])
    func stringOrdering(format: String, expected: Bool) {
        #expect(matches(format, in: Self.bob) == expected, "\(format)")
    }

    @Test(
        "Numbers compare across int, double and bool",
        arguments: [
            ("age == 42", true),
            ("age == 42.0", true),
            ("age == 42.5", false),
            ("age < 42.5", true),
            ("age > 41.9", true),
            ("age >= 42", true),
            ("age <= 41", false),
            ("score == 2.5", true),
            ("score > 2", true),
            ("score < 3", true),
            ("active == YES", true),
            ("active == 1", true),
            ("active == 1.0", true),
            ("active == NO", false),
            ("active > 0", true),
            ("age BETWEEN {40, 42}", true),
            ("age BETWEEN {42.0, 50}", true),
            ("age BETWEEN {43, 50}", false),
            ("age IN {1, 42.0}", true),
            ("age == '42'", false),
            ("age != '42'", true),
        ])
    func numbers(format: String, expected: Bool) {
        #expect(matches(format, in: Self.bob) == expected, "\(format)")
    }

    @Test func largeIntegersCompareExactly() {
        let record = TestRecord(["n": .int(9_007_199_254_740_993)])  // 2^53 + 1
        #expect(matches("n > %@", 9_007_199_254_740_992.0, in: record))
        #expect(!matches("n == %@", 9_007_199_254_740_992.0, in: record))
        #expect(matches("n < %@", 1e19, in: record))
        #expect(!matches("n < %@", Double.nan, in: record))
        #expect(!matches("n > %@", Double.nan, in: record))
    }

    @Test func datesBytesAndReferences() {
        #expect(matches("born == %@", Date(timeIntervalSince1970: 0), in: Self.bob))
        #expect(matches("born < %@", Date(timeIntervalSince1970: 1), in: Self.bob))
        #expect(!matches("born > %@", Date(timeIntervalSince1970: 1), in: Self.bob))
        #expect(matches("born < now()", in: Self.bob))
        #expect(matches("born BETWEEN {%@, now()}", Date.distantPast, in: Self.bob))
        #expect(!matches("born == 0", in: Self.bob))
        #expect(matches("blob == %@", Data([1, 2]), in: Self.bob))
        #expect(!matches("blob == %@", Data([1]), in: Self.bob))
        #expect(matches("owner == %@", TestReference("alice"), in: Self.bob))
        #expect(!matches("owner == %@", TestReference("bob"), in: Self.bob))
        #expect(
            !matches(
                "owner == %@",
                PredicateValue.reference(recordName: "alice", zoneName: "other", ownerName: "__defaultOwner__"),
                in: Self.bob))
        #expect(matches("owner IN %@", [TestReference("x"), TestReference("alice")], in: Self.bob))
        // A string equals a reference whose record name it is, case-sensitively.
        #expect(matches("owner == 'alice'", in: Self.bob))
        #expect(!matches("owner == 'ALICE'", in: Self.bob))
    }

    @Test func nowIsTheEvaluationTime() throws {
        let expression = try parse("born < now()")
        #expect(expression.evaluate(Self.bob, now: Date(timeIntervalSince1970: 1)))
        #expect(!expression.evaluate(Self.bob, now: Date(timeIntervalSince1970: -1)))
    }

    @Test(
        "CONTAINS, IN and ANY = are the same membership test",
        arguments: [
            ("red", true), ("RED", true), ("Green", true), ("blue", false), ("re", false),
        ])
    func membershipEquivalence(color: String, expected: Bool) {
        let forms = [
            "favoriteColors CONTAINS %@",
            "%@ IN favoriteColors",
            "ANY favoriteColors = %@",
            "ANY favoriteColors == %@",
            "SOME favoriteColors = %@",
            "favoriteColors = %@",
        ]
        for form in forms {
            #expect(matches(form, color, in: Self.bob) == expected, "\(form) with \(color)")
        }
        #expect(matches("%K CONTAINS %@", "favoriteColors", color, in: Self.bob) == expected)
        #expect(matches("NONE favoriteColors = %@", color, in: Self.bob) == !expected)
        #expect(matches("favoriteColors != %@", color, in: Self.bob) == !expected)
    }

    @Test func listMembershipVariants() {
        #expect(matches("lucky CONTAINS 7", in: Self.bob))
        #expect(matches("7 IN lucky", in: Self.bob))
        #expect(matches("7.0 IN lucky", in: Self.bob))
        #expect(!matches("8 IN lucky", in: Self.bob))
        #expect(matches("ANY lucky > 5", in: Self.bob))
        #expect(!matches("ANY lucky > 7", in: Self.bob))
        #expect(matches("ALL lucky > 2", in: Self.bob))
        #expect(!matches("ALL lucky > 3", in: Self.bob))
        // list CONTAINS {a, b}: all members; listField IN {a, b}: any member.
        #expect(matches("favoriteColors CONTAINS {'red', 'green'}", in: Self.bob))
        #expect(!matches("favoriteColors CONTAINS {'red', 'blue'}", in: Self.bob))
        #expect(matches("favoriteColors IN {'blue', 'RED'}", in: Self.bob))
        #expect(!matches("favoriteColors IN {'blue'}", in: Self.bob))
        #expect(matches("ANY favoriteColors IN {'blue', 'green'}", in: Self.bob))
        // Value in a constant set.
        #expect(matches("favoriteColor IN {'red', 'green'}", in: Self.bob))
        #expect(matches("ANY { 'red', 'green' } = favoriteColor", in: Self.bob))
        #expect(!matches("ANY { 'red', 'blue' } = favoriteColor", in: Self.bob))
        #expect(matches("favoriteColor IN %@", ["GREEN"], in: Self.bob))
        #expect(!matches("favoriteColor IN %@", [String](), in: Self.bob))
    }

    @Test func containsOnAScalarField() throws {
        // Not a list: no match, and evaluateStrictly says why.
        #expect(!matches("name CONTAINS 'Bob'", in: Self.bob))
        #expect(!matches("NOT name CONTAINS 'Bob'", in: Self.bob))
        let expression = try parse("name CONTAINS 'Bob'")
        let error = #expect(throws: QueryPredicateError.self) { try expression.evaluateStrictly(Self.bob) }
        #expect(error?.code == .evaluation)
        #expect(error?.message.contains("'name'") == true)
        #expect(error?.message.contains("list membership") == true)
        #expect(throws: QueryPredicateError.self) { try parse("'Bob' IN name").evaluateStrictly(Self.bob) }
        // Strict mode evaluates every subpredicate, so the error does not depend on order.
        #expect(throws: QueryPredicateError.self) {
            try parse("age == 1 AND name CONTAINS 'x'").evaluateStrictly(Self.bob)
        }
        #expect(throws: QueryPredicateError.self) { try parse("age BEGINSWITH '4'").evaluateStrictly(Self.bob) }
        #expect(try parse("favoriteColors CONTAINS 'red'").evaluateStrictly(Self.bob))
        // Absent fields are not type errors.
        #expect(try parse("missing CONTAINS 'red'").evaluateStrictly(Self.bob) == false)
    }

    @Test(
        "Absent and null fields",
        arguments: [
            ("missing == 'x'", false),
            ("missing != 'x'", false),
            ("NOT missing == 'x'", false),
            ("NOT missing != 'x'", false),
            ("missing < 3", false),
            ("NOT missing < 3", false),
            ("missing == nil", true),
            ("missing != nil", false),
            ("NOT missing == nil", false),
            ("note == nil", true),
            ("note != 'x'", false),
            ("name == nil", false),
            ("name != nil", true),
            ("missing IN {'x'}", false),
            ("'x' IN missing", false),
            ("ANY missing = 'x'", false),
            ("NOT ANY missing = 'x'", false),
            ("missing BEGINSWITH 'x'", false),
            ("missing == 'x' OR name == 'bob smith'", true),
            ("NOT (missing == 'x' OR name == 'alice')", false),
            ("NOT (missing == 'x' OR name == 'bob smith')", false),
            ("NOT (missing == 'x') AND name == 'bob smith'", false),
        ])
    func absentFields(format: String, expected: Bool) {
        #expect(matches(format, in: Self.bob) == expected, "\(format)")
    }

    @Test(
        "Logic",
        arguments: [
            ("TRUEPREDICATE", true),
            ("FALSEPREDICATE", false),
            ("NOT FALSEPREDICATE", true),
            ("age == 42 AND name == 'bob smith'", true),
            ("age == 42 AND name == 'alice'", false),
            ("age == 1 OR name == 'bob smith'", true),
            ("age == 1 OR name == 'alice'", false),
            ("NOT age == 1", true),
            ("NOT (age == 1 AND name == 'bob smith')", true),
            ("!(age == 42) || active == YES", true),
            ("name ENDSWITH 'Smith'", true),
            ("name LIKE 'Bob*'", false),
            ("name MATCHES 'Bob.*'", false),
        ])
    func logic(format: String, expected: Bool) {
        #expect(matches(format, in: Self.bob) == expected, "\(format)")
    }
}
