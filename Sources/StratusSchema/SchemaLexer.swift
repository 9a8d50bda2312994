/// Splits schema text into tokens, skipping white space and the three comment forms
/// (`// …`, `-- …` to the end of the line, `/* … */`).
struct SchemaLexer {
    private let characters: [Character]
    private var offset = 0
    private var line = 1
    private var column = 1

    init(_ text: String) {
        characters = Array(text)
    }

    /// Every token of the text, ending with `.end`.
    ///
    /// - Throws: an unexpected character, an unterminated quoted identifier or an
    ///   unterminated comment.
    mutating func tokens() throws(SchemaError) -> [SchemaToken] {
        var tokens: [SchemaToken] = []
        while true {
            try skipSpaceAndComments()
            let token = try next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private mutating func next() throws(SchemaError) -> SchemaToken {
        let (startLine, startColumn) = (line, column)
        func token(_ kind: SchemaToken.Kind) -> SchemaToken {
            SchemaToken(kind: kind, line: startLine, column: startColumn)
        }
        guard let character = peek() else { return token(.end) }
        if "(),;<>".contains(character) {
            advance()
            return token(.symbol(character))
        }
        if character == "\"" { return token(.quoted(try quoted())) }
        if Self.isWordStart(character) {
            var word = ""
            while let next = peek(), Self.isWordPart(next) {
                word.append(next)
                advance()
            }
            return token(.word(word))
        }
        throw SchemaError(
            line: line, column: column,
            message:
                "unexpected character '\(character)': expected a keyword, a name, '\"', '(', ')', ',', ';', '<' or '>'")
    }

    /// A quoted identifier's text; the opening quote is next.
    private mutating func quoted() throws(SchemaError) -> String {
        let (startLine, startColumn) = (line, column)
        advance()
        var name = ""
        while let character = peek(), character != "\"", !character.isNewline {
            name.append(character)
            advance()
        }
        guard peek() == "\"" else {
            throw SchemaError(
                line: startLine, column: startColumn,
                message: "unterminated quoted name: expected '\"' before the end of the line")
        }
        advance()
        return name
    }

    private mutating func skipSpaceAndComments() throws(SchemaError) {
        while let character = peek() {
            if character.isWhitespace {
                advance()
            } else if character == "/" && peek(1) == "/" || character == "-" && peek(1) == "-" {
                while let next = peek(), !next.isNewline { advance() }
            } else if character == "/" && peek(1) == "*" {
                try skipBlockComment()
            } else {
                return
            }
        }
    }

    private mutating func skipBlockComment() throws(SchemaError) {
        let (startLine, startColumn) = (line, column)
        advance()
        advance()
        while let character = peek() {
            if character == "*" && peek(1) == "/" {
                advance()
                advance()
                return
            }
            advance()
        }
        throw SchemaError(
            line: startLine, column: startColumn,
            message: "unterminated comment: expected '*/' before the end of the text")
    }

    private func peek(_ ahead: Int = 0) -> Character? {
        offset + ahead < characters.count ? characters[offset + ahead] : nil
    }

    private mutating func advance() {
        if characters[offset].isNewline {
            line += 1
            column = 1
        } else {
            column += 1
        }
        offset += 1
    }

    private static func isWordStart(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character == "_")
    }

    private static func isWordPart(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "_")
    }
}
