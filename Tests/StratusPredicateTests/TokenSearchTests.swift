import Foundation
import StratusPredicate
import Testing

@Suite("Full-text tokens")
struct TokenSearchTests {
    @Test func tokenize() {
        #expect(QueryPredicate.tokenize("Bob Smith") == ["bob", "smith"])
        #expect(QueryPredicate.tokenize("  Café, CRÈME-brûlée! 42nd  ") == ["cafe", "creme", "brulee", "42nd"])
        #expect(QueryPredicate.tokenize("The cat and the hat") == ["cat", "hat"])
        #expect(QueryPredicate.tokenize("Straße") == ["strasse"])
        #expect(QueryPredicate.tokenize("e-mail: bob@example.com") == ["e", "mail", "bob", "example", "com"])
        #expect(QueryPredicate.tokenize("") == [])
        #expect(QueryPredicate.tokenize("the of and") == [])
        #expect(PredicateTokenizer.tokenize(["Bob", "SMITH", "bob"]) == ["bob", "smith"])
    }

    @Test func stopWordsAreCloudKits() {
        #expect(PredicateTokenizer.stopWords.count == 33)
        for word in ["a", "the", "with", "will", "these", "such"] {
            #expect(PredicateTokenizer.stopWords.contains(word))
        }
    }

    static let record = TestRecord([
        "title": .string("Le Café de Flore"),
        "author": .string("Bob Smith"),
        "tags": .list([.string("Paris"), .string("coffee")]),
        "year": .int(1887),
    ])

    @Test(
        "self CONTAINS matches any token",
        arguments: [
            ("bob", true),
            ("BOB", true),
            ("bob smith", true),
            ("bob jones", true),  // any token
            ("jones", false),
            ("cafe", true),  // diacritics ignored
            ("CAFÉ", true),
            ("flore paris", true),  // across fields, list elements included
            ("coffee", true),
            ("1887", false),  // numbers are not searchable text
            ("smi", false),  // whole tokens only
            ("the", false),  // only stop words: matches nothing
            ("the and of", false),
            ("", false),
            ("the bob", true),  // stop words dropped
            ("de", true),
        ])
    func tokenSearch(words: String, expected: Bool) {
        #expect(matches("self CONTAINS %@", words, in: Self.record) == expected, "\(words)")
    }

    @Test func allTokensWithAnd() {
        #expect(matches("self CONTAINS 'bob' AND self CONTAINS 'smith'", in: Self.record))
        #expect(!matches("self CONTAINS 'bob' AND self CONTAINS 'jones'", in: Self.record))
    }

    @Test func searchableTextComesFromTheSubject() {
        let record = TestRecord(["title": .string("Bob")], searchableText: ["Alice"])
        #expect(!matches("self CONTAINS 'bob'", in: record))
        #expect(matches("self CONTAINS 'alice'", in: record))
    }
}
