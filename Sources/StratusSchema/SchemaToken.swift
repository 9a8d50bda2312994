/// A token of schema text, with where it starts.
struct SchemaToken: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        /// A bare word: a keyword or an unquoted identifier.
        case word(String)
        /// A double-quoted identifier, without its quotes.
        case quoted(String)
        /// One of `(`, `)`, `,`, `;`, `<`, `>`.
        case symbol(Character)
        /// The end of the text.
        case end
    }

    var kind: Kind
    var line: Int
    var column: Int

    /// The bare word, uppercased, if the token is one (keywords are case-insensitive).
    var keyword: String? {
        if case .word(let word) = kind { return word.uppercased() }
        return nil
    }

    /// Whether the token is the keyword `keyword` (uppercase).
    func isKeyword(_ keyword: String) -> Bool { self.keyword == keyword }

    /// Whether the token is `symbol`.
    func isSymbol(_ symbol: Character) -> Bool { kind == .symbol(symbol) }

    /// How an error message names the token.
    var quotedForMessage: String {
        switch kind {
        case .word(let word): return "'\(word)'"
        case .quoted(let name): return "'\"\(name)\"'"
        case .symbol(let symbol): return "'\(symbol)'"
        case .end: return "the end of the text"
        }
    }

    /// An error at the token.
    func error(_ message: String) -> SchemaError {
        SchemaError(line: line, column: column, message: message)
    }
}
