import Foundation
import StratusPredicate
import Testing

@Suite("CloudKit validation")
struct ValidationTests {
    static let paris = PredicateValue.location(latitude: 48.8566, longitude: 2.3522)

    @Test(
        "Supported predicates pass",
        arguments: [
            "TRUEPREDICATE",
            "FALSEPREDICATE",
            "name == 'x'",
            "name = 'x' AND age >= 3 AND age =< 10",
            "age BETWEEN {1, 10}",
            "name BEGINSWITH 'Bo'",
            "ANY tags BEGINSWITH 'x'",
            "tags CONTAINS 'red'",
            "'red' IN tags",
            "ANY tags = 'red'",
            "color IN {'red', 'green'}",
            "ANY {'red', 'green'} = color",
            "self CONTAINS 'bob smith'",
            "self CONTAINS 'bob' AND self CONTAINS 'smith'",
            "NOT name == 'x'",
            "NOT (name == 'x')",
            "NOT NOT name == 'x'",
            "name != 'x' AND NOT age < 3",
            "modified < now()",
            "modified BETWEEN {CAST(0, 'NSDate'), now()}",
            "5 < age",
            "name ==[cd] 'x'",
            "x == nil",
        ])
    func supported(format: String) {
        #expect(validationError(format) == nil)
    }

    @Test func distanceForms() {
        #expect(validationError("distanceToLocation:fromLocation:(location, %@) < 10", Self.paris) == nil)
        #expect(validationError("distanceToLocation:fromLocation:(location, %@) <= %f", Self.paris, 2.5) == nil)
        #expect(validationError("10 > distanceToLocation:fromLocation:(location, %@)", Self.paris) == nil)
        #expect(
            validationError("%K == 'x' AND distanceToLocation:fromLocation:(%K, %@) < 10", "name", "where", Self.paris)
                == nil)
    }

    /// Each rejected construct and a fragment its message must contain.
    static let rejections: [(format: String, fragment: String)] = [
        ("a == 1 OR b == 2", "OR is not supported"),
        ("a == 1 || b == 2", "OR is not supported"),
        ("ALL tags == 'x'", "ALL aggregate operator"),
        ("name ENDSWITH 'x'", "ENDSWITH operator"),
        ("name LIKE 'x*'", "LIKE operator"),
        ("name MATCHES 'x.*'", "MATCHES operator"),
        ("owner.name == 'x'", "Key paths into related records ('owner.name')"),
        ("NOT (a == 1 AND b == 2)", "NOT cannot negate an AND"),
        ("NOT NOT (a == 1 AND b == 2)", "NOT cannot negate an AND"),
        ("NOT self CONTAINS 'bob'", "NOT cannot be used with a tokenized search"),
        ("NOT (n BETWEEN {1, 2})", "NOT cannot be used with BETWEEN"),
        ("NONE tags == 'x' AND NOT (n BETWEEN {1, 2})", "NOT cannot be used with BETWEEN"),
        ("a == b", "Comparing two fields"),
        ("1 == 1", "Comparing two constants"),
        ("'x' IN {'x'}", "Comparing two constants"),
        ("self == 'x'", "SELF is only supported as a tokenized search"),
        ("ANY self CONTAINS 'x'", "SELF is only supported as a tokenized search"),
        ("self CONTAINS 3", "needs a string of words"),
        ("n BETWEEN {1, 2, 3}", "BETWEEN needs"),
        ("n BETWEEN 1", "BETWEEN needs"),
        ("name BEGINSWITH 3", "BEGINSWITH needs a string"),
        ("'abc' CONTAINS name", "CONTAINS on a string is not supported"),
        ("name IN 'abc'", "IN needs a list"),
        ("color IN {'red', other}", "Aggregates may contain only values"),
    ]

    @Test func rejectedConstructs() {
        for (format, fragment) in Self.rejections {
            let error = validationError(format)
            #expect(error?.code == .unsupported, "\(format)")
            #expect(error?.message.contains(fragment) == true, "\(format): \(error?.message ?? "accepted")")
        }
    }

    @Test func distanceRejections() {
        let requirement = "must be compared with < or <="
        let rejectedFormats: [(String, [Any])] = [
            ("distanceToLocation:fromLocation:(location, %@) > 10", [Self.paris]),
            ("distanceToLocation:fromLocation:(location, %@) >= 10", [Self.paris]),
            ("distanceToLocation:fromLocation:(location, %@) == 10", [Self.paris]),
            ("distanceToLocation:fromLocation:(location, %@) BETWEEN {1, 2}", [Self.paris]),
            ("10 < distanceToLocation:fromLocation:(location, %@)", [Self.paris]),
        ]
        for (format, arguments) in rejectedFormats {
            let error = validate(format, arguments)
            #expect(error?.message.contains(requirement) == true, "\(format): \(error?.message ?? "accepted")")
        }
        #expect(
            validate("distanceToLocation:fromLocation:(location, %@) < 'far'", [Self.paris])?.message.contains(
                "radius must be a number") == true)
        #expect(
            validate("distanceToLocation:fromLocation:(location, %@) < %@", [Self.paris, Date()])?.message.contains(
                "radius must be a number") == true)
        #expect(
            validate("distanceToLocation:fromLocation:(location, 'x') < 1", [])?.message.contains(
                "must be a location value") == true)
        #expect(
            validate("distanceToLocation:fromLocation:(%@, %@) < 1", [Self.paris, Self.paris])?.message.contains(
                "must be a location field") == true)
        #expect(
            validate("NOT distanceToLocation:fromLocation:(location, %@) < 1", [Self.paris])?.message.contains(
                "NOT cannot be used with distanceToLocation") == true)
        #expect(
            validate("distanceToLocation:fromLocation:(home.location, %@) < 1", [Self.paris])?.message.contains(
                "home.location") == true)
    }

    private func validate(_ format: String, _ arguments: [Any]) -> QueryPredicateError? {
        do {
            try QueryPredicate.parse(format: format, arguments: arguments).validateForCloudKit()
            return nil
        } catch {
            return error
        }
    }

    @Test func compoundPredicatesValidateToo() throws {
        let or = NSCompoundPredicate(orPredicateWithSubpredicates: [
            NSPredicate(format: "a == 1"), NSPredicate(format: "b == 2"),
        ])
        let orExpression = try #require(or.stratusExpression)
        #expect(throws: QueryPredicateError.self) { try orExpression.validateForCloudKit() }
        let notAnd = NSCompoundPredicate(
            notPredicateWithSubpredicate: NSCompoundPredicate(andPredicateWithSubpredicates: [
                NSPredicate(format: "a == 1"), NSPredicate(format: "b == 2"),
            ]))
        let notAndExpression = try #require(notAnd.stratusExpression)
        #expect(throws: QueryPredicateError.self) { try notAndExpression.validateForCloudKit() }
    }
}
