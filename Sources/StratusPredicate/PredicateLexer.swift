/// Splits a predicate format string into ``PredicateToken``s.
struct PredicateLexer {
    private let characters: [Character]
    private var index = 0

    /// A lexer over `format`.
    init(_ format: String) {
        characters = Array(format)
    }

    /// Every token of the format string, ending with ``PredicateToken/Kind/end``.
    static func tokens(of format: String) throws(QueryPredicateError) -> [PredicateToken] {
        var lexer = PredicateLexer(format)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private var current: Character? {
        index < characters.count ? characters[index] : nil
    }

    private func peek(_ offset: Int) -> Character? {
        index + offset < characters.count ? characters[index + offset] : nil
    }

    private static func isIdentifierStart(_ character: Character) -> Bool {
        character.isLetter || character == "_"
    }

    private static func isIdentifierPart(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
    }

    private static func isDigit(_ character: Character) -> Bool {
        character.isASCII && character.isNumber
    }

    /// The next token.
    mutating func next() throws(QueryPredicateError) -> PredicateToken {
        while let character = current, character.isWhitespace {
            index += 1
        }
        let start = index
        guard let character = current else {
            return PredicateToken(kind: .end, position: start)
        }
        if PredicateLexer.isIdentifierStart(character) {
            return lexIdentifierOrSelector(start: start)
        }
        if PredicateLexer.isDigit(character)
            || (character == "." && peek(1).map(PredicateLexer.isDigit) == true)
        {
            return try lexNumber(start: start)
        }
        switch character {
        case "'", "\"":
            return try lexString(quote: character, start: start)
        case "%":
            return try lexSpecifier(start: start)
        case "#":
            index += 1
            guard let first = current, PredicateLexer.isIdentifierStart(first) else {
                throw QueryPredicateError(.syntax, "Expected a key after '#'", position: start)
            }
            let name = readIdentifier()
            return PredicateToken(kind: .escapedIdentifier(name), position: start)
        case "$":
            index += 1
            let name = readIdentifier()
            return PredicateToken(kind: .variable(name), position: start)
        case "@":
            index += 1
            let name = readIdentifier()
            throw QueryPredicateError(
                .unsupported,
                "Collection operators such as '@\(name)' are not supported in CloudKit queries",
                position: start
            )
        default:
            return lexSymbol(start: start)
        }
    }

    private mutating func readIdentifier() -> String {
        var name = ""
        while let character = current, PredicateLexer.isIdentifierPart(character) {
            name.append(character)
            index += 1
        }
        return name
    }

    private mutating func lexIdentifierOrSelector(start: Int) -> PredicateToken {
        var name = readIdentifier()
        guard current == ":" else {
            return PredicateToken(kind: .identifier(name), position: start)
        }
        // A selector: `distanceToLocation:fromLocation:`.
        while current == ":" {
            name.append(":")
            index += 1
            if let character = current, PredicateLexer.isIdentifierStart(character) {
                name += readIdentifier()
            }
        }
        return PredicateToken(kind: .selector(name), position: start)
    }

    private mutating func lexNumber(start: Int) throws(QueryPredicateError) -> PredicateToken {
        if current == "0", let marker = peek(1), "xXoObB".contains(marker) {
            let radix = "xX".contains(marker) ? 16 : ("oO".contains(marker) ? 8 : 2)
            index += 2
            var digits = ""
            while let character = current, character.isHexDigit || character == "_" {
                if character != "_" { digits.append(character) }
                index += 1
            }
            guard !digits.isEmpty, let value = Int64(digits, radix: radix) else {
                throw QueryPredicateError(
                    .syntax,
                    "Invalid or too large integer literal '\(String(characters[start..<index]))'",
                    position: start
                )
            }
            return PredicateToken(kind: .integer(value), position: start)
        }
        var text = ""
        var isInteger = true
        while let character = current, PredicateLexer.isDigit(character) {
            text.append(character)
            index += 1
        }
        if current == ".", peek(1).map(PredicateLexer.isDigit) == true {
            isInteger = false
            text.append(".")
            index += 1
            while let character = current, PredicateLexer.isDigit(character) {
                text.append(character)
                index += 1
            }
        }
        if let marker = current, marker == "e" || marker == "E" {
            var lookahead = 1
            if let sign = peek(1), sign == "+" || sign == "-" { lookahead = 2 }
            if peek(lookahead).map(PredicateLexer.isDigit) == true {
                isInteger = false
                for _ in 0..<lookahead {
                    text.append(characters[index])
                    index += 1
                }
                while let character = current, PredicateLexer.isDigit(character) {
                    text.append(character)
                    index += 1
                }
            }
        }
        if let character = current, PredicateLexer.isIdentifierStart(character) {
            throw QueryPredicateError(
                .syntax,
                "Invalid number '\(text)\(character)…': a key cannot start with a digit",
                position: start
            )
        }
        if isInteger {
            if text == "9223372036854775808" {
                return PredicateToken(kind: .integerMinMagnitude, position: start)
            }
            guard let value = Int64(text) else {
                throw QueryPredicateError(.syntax, "Integer literal \(text) is too large", position: start)
            }
            return PredicateToken(kind: .integer(value), position: start)
        }
        let normalised = text.hasPrefix(".") ? "0" + text : text
        guard let value = Double(normalised), value.isFinite else {
            throw QueryPredicateError(.syntax, "Invalid number '\(text)'", position: start)
        }
        return PredicateToken(kind: .double(value), position: start)
    }

    private mutating func lexString(quote: Character, start: Int) throws(QueryPredicateError) -> PredicateToken {
        index += 1
        var value = ""
        while let character = current {
            index += 1
            if character == quote {
                return PredicateToken(kind: .string(value), position: start)
            }
            guard character == "\\" else {
                value.append(character)
                continue
            }
            guard let escaped = current else { break }
            index += 1
            switch escaped {
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "0": value.append("\0")
            case "u":
                let hex = String(characters[index..<min(index + 4, characters.count)])
                guard hex.count == 4, let code = UInt32(hex, radix: 16),
                    let scalar = Unicode.Scalar(code)
                else {
                    throw QueryPredicateError(
                        .syntax,
                        "Invalid \\u escape in a string literal; expected four hexadecimal digits",
                        position: index - 2
                    )
                }
                value.unicodeScalars.append(scalar)
                index += 4
            default: value.append(escaped)
            }
        }
        throw QueryPredicateError(
            .syntax,
            "Unterminated string literal: missing closing \(quote)",
            position: start
        )
    }

    private mutating func lexSpecifier(start: Int) throws(QueryPredicateError) -> PredicateToken {
        index += 1
        var specifier = ""
        while let character = current, "hlqLzjt".contains(character) {
            specifier.append(character)
            index += 1
        }
        guard let conversion = current else {
            throw QueryPredicateError(
                .syntax, "Incomplete format specifier '%\(specifier)' at the end", position: start)
        }
        index += 1
        specifier.append(conversion)
        let valid: Set<String> = [
            "@", "K", "s",
            "d", "i", "u", "o", "x", "X",
            "hd", "hi", "hu", "hhd", "hhi", "hhu",
            "ld", "li", "lu", "lo", "lx", "lX",
            "lld", "lli", "llu", "llo", "llx", "llX",
            "qd", "qi", "qu", "zd", "zu", "jd", "ju", "td",
            "f", "F", "e", "E", "g", "G", "lf", "lF", "le", "lE", "lg", "lG", "Lf",
        ]
        guard valid.contains(specifier) else {
            throw QueryPredicateError(.syntax, "Unknown format specifier '%\(specifier)'", position: start)
        }
        return PredicateToken(kind: .specifier(specifier), position: start)
    }

    private mutating func lexSymbol(start: Int) -> PredicateToken {
        let two: Set<String> = ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "**"]
        if let first = current, let second = peek(1), two.contains(String([first, second])) {
            index += 2
            return PredicateToken(kind: .symbol(String([first, second])), position: start)
        }
        let symbol = String(characters[index])
        index += 1
        return PredicateToken(kind: .symbol(symbol), position: start)
    }
}
