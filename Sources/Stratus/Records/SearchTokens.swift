import StratusPredicate

/// The tokens of full-text (`self CONTAINS`) search, shared with the query evaluator.
enum SearchTokens {
    static func tokenize(_ text: String) -> Set<String> {
        PredicateTokenizer.tokenize(text)
    }
}
