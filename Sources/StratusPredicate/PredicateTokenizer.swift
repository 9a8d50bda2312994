import Foundation

/// The full-text tokenizer behind `self CONTAINS 'words'` and `CKRecord.allTokens()`.
///
/// A text is folded (case and diacritics removed with Foundation's
/// `folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)`, so "Café" and
/// "CAFE" both give "cafe" and "Straße" gives "strasse"), split at every character that is not a
/// letter or a digit, and stripped of CloudKit's stop words.
public enum PredicateTokenizer {
    /// The words CloudKit ignores in full-text searches (from the `CKQuery` documentation).
    public static let stopWords: Set<String> = [
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
        "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
        "these", "they", "this", "to", "was", "will", "with",
    ]

    /// The distinct normalised tokens of `text`, stop words removed.
    public static func tokenize(_ text: String) -> Set<String> {
        var tokens = Set<String>()
        tokenize(text, into: &tokens)
        return tokens
    }

    /// The distinct normalised tokens of all `texts`, stop words removed.
    public static func tokenize(_ texts: some Sequence<String>) -> Set<String> {
        var tokens = Set<String>()
        for text in texts {
            tokenize(text, into: &tokens)
        }
        return tokens
    }

    /// `text` without case and diacritics, as tokens and diacritic-insensitive comparisons
    /// see it.
    public static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    private static func tokenize(_ text: String, into tokens: inout Set<String>) {
        let folded = fold(text)
        for word in folded.split(whereSeparator: { !($0.isLetter || $0.isNumber) }) {
            let token = String(word)
            if !stopWords.contains(token) {
                tokens.insert(token)
            }
        }
    }
}

extension QueryPredicate {
    /// The full-text tokens of `text`, as ``PredicateTokenizer`` makes them (folded, split
    /// at non-alphanumerics, stop words removed). `CKRecord.allTokens()` is built on it.
    public static func tokenize(_ text: String) -> Set<String> {
        PredicateTokenizer.tokenize(text)
    }
}
