import Foundation
import StratusPredicate
import Testing

@Suite("NSPredicate and NSSortDescriptor on Linux")
struct FoundationBridgeTests {
    @Test func valuePredicates() {
        #expect(NSPredicate(value: true).stratusExpression == .true)
        #expect(NSPredicate(value: false).stratusExpression == .false)
        #expect(NSPredicate(value: true).stratusParseError == nil)
        #expect(NSPredicate(value: true).stratusPredicateFormat == "TRUEPREDICATE")
        #expect(NSPredicate(value: false).stratusPredicateFormat == "FALSEPREDICATE")
        // Copies of value predicates are value predicates.
        let copy = NSPredicate(value: true).copy() as? NSPredicate
        #expect(copy?.stratusExpression == .true)
        #expect(NSPredicate(value: true).evaluate(with: nil))
    }

    @Test func formatPredicates() throws {
        let predicate = NSPredicate(format: "name == %@ AND age > %d", "Bob", 3)
        #expect(
            predicate.stratusExpression
                == .and([
                    comparison(key("name"), .equalTo, value(.string("Bob"))),
                    comparison(key("age"), .greaterThan, value(.int(3))),
                ]))
        #expect(predicate.stratusPredicateFormat == "name == \"Bob\" AND age > 3")
        #expect(NSPredicate(format: "TRUEPREDICATE").stratusExpression == .true)
        let fromArray = NSPredicate(format: "name == %@ AND age > %d", argumentArray: ["Bob", 3])
        #expect(fromArray.stratusExpression == predicate.stratusExpression)
        #expect(NSPredicate(format: "a == 1", argumentArray: nil).stratusExpression != nil)
    }

    @Test func parseErrorsAreKeptNotRaised() {
        let predicate = NSPredicate(format: "name == 'unterminated")
        #expect(predicate.stratusExpression == nil)
        #expect(predicate.stratusParseError?.code == .syntax)
        #expect(predicate.stratusParseError?.message.contains("Unterminated string") == true)
        #expect(predicate.stratusPredicateFormat == "name == 'unterminated")
        #expect(!predicate.evaluate(with: TestRecord(["name": .string("x")])))
        let badArgument = NSPredicate(format: "id == %@", argumentArray: [UUID()])
        #expect(badArgument.stratusParseError?.code == .argument)
    }

    @Test func evaluateWithUsesTheParsedForm() {
        let predicate = NSPredicate(format: "name == 'bob' AND tags CONTAINS 'x'")
        #expect(predicate.evaluate(with: TestRecord(["name": .string("BOB"), "tags": .list([.string("x")])])))
        #expect(!predicate.evaluate(with: TestRecord(["name": .string("alice"), "tags": .list([.string("x")])])))
        #expect(!predicate.evaluate(with: "not a subject"))
        #expect(!predicate.evaluate(with: nil))
        // A copy is a plain block predicate on Linux: it still evaluates, but cannot be read.
        let copy = predicate.copy() as? NSPredicate
        #expect(copy?.evaluate(with: TestRecord(["name": .string("bob"), "tags": .list([.string("x")])])) == true)
        #expect(copy?.stratusParseError?.code == .unsupported)
    }

    @Test func blockPredicatesAreUnsupported() {
        let block = NSPredicate { _, _ in true }
        #expect(block.stratusExpression == nil)
        #expect(block.stratusParseError?.code == .unsupported)
        #expect(block.stratusParseError?.message.contains("Block predicates") == true)
    }

    @Test func compoundPredicates() {
        let a = NSPredicate(format: "a == 1")
        let b = NSPredicate(format: "b == 2")
        let aExpression = comparison(key("a"), .equalTo, value(.int(1)))
        let bExpression = comparison(key("b"), .equalTo, value(.int(2)))
        #expect(
            NSCompoundPredicate(andPredicateWithSubpredicates: [a, b]).stratusExpression
                == .and([aExpression, bExpression]))
        #expect(
            NSCompoundPredicate(orPredicateWithSubpredicates: [a, b]).stratusExpression
                == .or([aExpression, bExpression]))
        #expect(NSCompoundPredicate(notPredicateWithSubpredicate: a).stratusExpression == .not(aExpression))
        #expect(NSCompoundPredicate(andPredicateWithSubpredicates: []).stratusExpression == .true)
        #expect(
            NSCompoundPredicate(andPredicateWithSubpredicates: [a, NSPredicate(value: true)]).stratusExpression
                == .and([aExpression, .true]))
        #expect(
            NSCompoundPredicate(andPredicateWithSubpredicates: [a, NSPredicate { _, _ in true }]).stratusParseError?
                .code == .unsupported)
        #expect(
            NSCompoundPredicate(andPredicateWithSubpredicates: [a, NSPredicate(format: "(")]).stratusParseError?.code
                == .syntax)
        #expect(
            NSCompoundPredicate(andPredicateWithSubpredicates: [a, b]).stratusPredicateFormat == "a == 1 AND b == 2")
        let record = TestRecord(["a": .int(1), "b": .int(3)])
        #expect(!NSCompoundPredicate(andPredicateWithSubpredicates: [a, b]).evaluate(with: record))
        #expect(NSCompoundPredicate(orPredicateWithSubpredicates: [a, b]).evaluate(with: record))
    }

    @Test func sideTableSurvivesManyPredicatesAndThreads() async {
        // Many short-lived predicates: entries of freed predicates never answer for new ones.
        for index in 0..<2_000 {
            let predicate = NSPredicate(format: "n == %d", index)
            #expect(predicate.stratusExpression == comparison(key("n"), .equalTo, value(.int(Int64(index)))))
            let block = NSPredicate { _, _ in false }
            #expect(block.stratusExpression == nil)
        }
        await withTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<250 {
                        let number = task * 1_000 + index
                        let predicate = NSPredicate(format: "n == %d", number)
                        guard predicate.stratusExpression == comparison(key("n"), .equalTo, value(.int(Int64(number))))
                        else {
                            return false
                        }
                    }
                    return true
                }
            }
            for await ok in group {
                #expect(ok)
            }
        }
    }

    @Test func sortDescriptors() {
        let descriptor = NSSortDescriptor(key: "modificationDate", ascending: false)
        #expect(descriptor.key == "modificationDate")
        #expect(descriptor.stratusKey == "modificationDate")
        #expect(descriptor.ascending == false)
        #expect(descriptor.stratusAscending == false)
        #expect(descriptor.stratusSortKey == SortKey(key: "modificationDate", ascending: false))
        let ascending = NSSortDescriptor(key: "name", ascending: true)
        #expect(ascending.stratusSortKey == SortKey(key: "name", ascending: true))
        #expect(NSSortDescriptor(key: nil, ascending: true).stratusSortKey == nil)
        let copy = descriptor.copy() as? NSSortDescriptor
        #expect(copy?.stratusSortKey == descriptor.stratusSortKey)
        let registered = NSSortDescriptor(keyPath: \TestLocation.latitude, ascending: true)
        #expect(registered.stratusKey == nil)
        registered.stratusRegister(key: "location")
        #expect(registered.stratusSortKey == SortKey(key: "location", ascending: true))
    }
}
