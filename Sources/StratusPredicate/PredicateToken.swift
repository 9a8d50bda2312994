/// One lexical token of a predicate format string.
struct PredicateToken: Equatable {
    /// What the token is.
    enum Kind: Equatable {
        /// An identifier: a key or a keyword (decided by the parser).
        case identifier(String)
        /// A `#`-escaped identifier: always a key, never a keyword.
        case escapedIdentifier(String)
        /// A function selector with colons, such as `distanceToLocation:fromLocation:`.
        case selector(String)
        /// A quoted string literal, escapes resolved.
        case string(String)
        /// An integer literal.
        case integer(Int64)
        /// The literal 9223372036854775808 (2^63), valid only after a minus sign, where it
        /// makes `Int64.min`.
        case integerMinMagnitude
        /// A floating-point literal.
        case double(Double)
        /// A format specifier without its `%` (`@`, `K`, `d`, `ld`, `f`, …).
        case specifier(String)
        /// A `$variable`.
        case variable(String)
        /// Punctuation or an operator symbol (`(`, `{`, `,`, `==`, `&&`, `!`, `-`, …), or any
        /// other single character the parser will report.
        case symbol(String)
        /// The end of the format string.
        case end
    }

    /// What the token is.
    var kind: Kind
    /// The offset of its first character in the format string.
    var position: Int

    /// The token as the format string spells it, for error messages.
    var spelling: String {
        switch kind {
        case .identifier(let name), .selector(let name): return name
        case .escapedIdentifier(let name): return "#" + name
        case .string(let string): return PredicateValue.quoted(string)
        case .integer(let value): return String(value)
        case .integerMinMagnitude: return "9223372036854775808"
        case .double(let value): return String(value)
        case .specifier(let specifier): return "%" + specifier
        case .variable(let name): return "$" + name
        case .symbol(let symbol): return symbol
        case .end: return "end of the predicate"
        }
    }

    /// Whether this is the symbol `symbol`.
    func isSymbol(_ symbol: String) -> Bool {
        kind == .symbol(symbol)
    }

    /// The keyword this token spells, if it is an unescaped identifier that is one.
    var keyword: PredicateKeyword? {
        if case .identifier(let name) = kind { return PredicateKeyword(name) }
        return nil
    }
}
