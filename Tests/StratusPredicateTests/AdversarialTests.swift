import Foundation
import StratusPredicate
import Testing

@Suite("Adversarial input")
struct AdversarialTests {
    /// Malformed format strings and a fragment of the error each must give.
    static let malformed: [(format: String, fragment: String)] = [
        ("", "Empty predicate"),
        ("   ", "Empty predicate"),
        ("(a == 1", "Unbalanced '('"),
        ("((a == 1)", "Unbalanced '('"),
        ("a == 1)", "Unbalanced ')'"),
        ("()", "Empty parentheses"),
        ("a == 'abc", "Unterminated string"),
        ("a == \"abc", "Unterminated string"),
        ("a == 'abc\\", "Unterminated string"),
        ("a ~ 1", "Unknown operator '~'"),
        ("a === 1", "Expected a key or a value, found '='"),
        ("a & 1", "Unknown operator '&'"),
        ("a", "expected an operator after 'a'"),
        ("a ==", "Missing right-hand side"),
        ("a == 1 AND", "Unexpected end"),
        ("AND a == 1", "found the keyword 'AND'"),
        ("a == 1 b == 2", "Unexpected 'b'"),
        ("a IN {1, 2", "Unbalanced '{'"),
        ("a IN {1 2}", "Expected ',' or '}'"),
        ("a == %y", "Unknown format specifier '%y'"),
        ("a == %q", "Incomplete format specifier"),
        ("a == %", "Incomplete format specifier"),
        ("a == $x", "Substitution variables"),
        ("a + 1 == 2", "Arithmetic"),
        ("tags.@count > 1", "Collection operators"),
        ("a ==[x] 'b'", "Unknown comparison modifier"),
        ("a ==[c 'b'", "Missing ']'"),
        ("a == 99999999999999999999", "too large"),
        ("a == 9223372036854775808", "too large"),
        ("a == -9223372036854775809", "too large"),
        ("a == 12abc", "Invalid number"),
        ("a == 'x\\u12'", "Invalid \\u escape"),
        ("foo(a) == 1", "function 'foo'"),
        ("tokenize:using:(a, 'b') == 1", "function 'tokenize:using:'"),
        ("SUBQUERY(a, $x, $x == 1) == 0", "function 'SUBQUERY'"),
        ("tags.@count > 1 AND SUBQUERY(a, $x, $x == 1) == 0", "Collection operators"),
        ("distanceToLocation:fromLocation:(a) < 1", "takes 2 arguments"),
        ("now(1) < a", "takes no arguments"),
        ("a == CAST(1, 'NSString')", "CAST to 'NSString'"),
        ("a == #", "Expected a key after '#'"),
        ("a.  == 1", "Expected a key after '.'"),
    ]

    @Test func malformedStringsGiveErrors() {
        for (format, fragment) in Self.malformed {
            let error = parseError(format)
            #expect(error != nil, "'\(format)' parsed")
            #expect(error?.message.contains(fragment) == true, "'\(format)': \(error?.message ?? "no error")")
        }
    }

    @Test func errorPositionsPointAtTheProblem() {
        #expect(parseError("a == 'abc")?.position == 5)
        #expect(parseError("(a == 1")?.position == 0)
        #expect(parseError("a ~ 1")?.position == 2)
        #expect(parseError("a == 1)")?.position == 6)
        #expect(parseError("a == 1)")?.description.contains("offset 6") == true)
    }

    /// Random strings over the predicate alphabet never crash the parser, the validator or
    /// the evaluator.
    @Test func randomInputsNeverCrash() {
        let alphabet = Array("ab (){},.=!<>&|'\"%@Kdf#$-19 ANDORNOTINANYALLself\\[]c:")
        var generator = SplitMix64(seed: 0x5EED)
        let record = TestRecord(["a": .int(1), "b": .list([.string("x")])])
        var parsed = 0
        for _ in 0..<3_000 {
            let length = Int(generator.next() % 24)
            let format = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            do {
                let expression = try QueryPredicate.parse(format: format, arguments: ["a", 1, 2.5])
                parsed += 1
                _ = try? expression.validateForCloudKit()
                _ = expression.evaluate(record)
                _ = try? expression.evaluateStrictly(record)
                _ = expression.description
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
        #expect(parsed >= 0)
    }

    @Test func deepNestingIsHandled() throws {
        let depth = 200
        let format = String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth)
        #expect(try parse(format) == comparison(key("a"), .equalTo, value(.int(1))))
        let nots = String(repeating: "NOT ", count: depth) + "a == 1"
        #expect(try parse(nots).evaluate(TestRecord(["a": .int(1)])))
    }

    @Test func nestingIsCountedAcrossBracketsAndNots() throws {
        // A staircase of NOT runs, each under the limit alone, nests 20,000 levels in all.
        var format = ""
        for level in 0..<199 { format += String(repeating: "NOT ", count: 199 - level) + "(" }
        format += "a == 1" + String(repeating: ")", count: 199)
        #expect { _ = try parse(format) } throws: { "\($0)".contains("nests more than 200") }
        // 100 NOTs, a bracket and 99 more: 200 levels, the limit; one more is refused.
        let atLimit = String(repeating: "NOT ", count: 100) + "(" + String(repeating: "NOT ", count: 99) + "a == 1)"
        #expect(try parse(atLimit).evaluate(TestRecord(["a": .int(1)])) == false)
        #expect { _ = try parse("NOT " + atLimit) } throws: { "\($0)".contains("nests more than 200") }
        // Siblings do not nest: 150 bracketed NOTs side by side.
        let siblings = (0..<150).map { _ in "(NOT a == 2)" }.joined(separator: " AND ")
        #expect(try parse(siblings).evaluate(TestRecord(["a": .int(1)])))
    }
}

/// A small deterministic random number generator.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
