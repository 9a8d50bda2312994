/// A recursive-descent parser of the CloudKit Schema Language (Docs/SchemaLanguage.md).
///
/// A syntax error ends the parse; problems with names, duplicates, system field types,
/// indexes and roles are collected so one run reports them all.
struct SchemaParser {
    private let text: String
    var tokens: [SchemaToken] = []
    var position = 0
    var problems: [SchemaError] = []
    var schema = CloudKitSchema()
    /// Every `GRANT … TO role`, checked against the roles once the whole text is read.
    var grantedRoles: [(role: String, recordType: String, token: SchemaToken)] = []

    init(_ text: String) {
        self.text = text
    }

    /// The schema, or every problem found.
    mutating func parseSchema() throws(SchemaErrors) -> CloudKitSchema {
        do {
            var lexer = SchemaLexer(text)
            tokens = try lexer.tokens()
            try parseStatements()
            checkGrantedRoles()
        } catch {
            problems.append(error)
        }
        if problems.isEmpty { return schema }
        // In the order of the text; problems at one position in the order they were found.
        let ordered = problems.enumerated().sorted {
            ($0.element.line, $0.element.column, $0.offset) < ($1.element.line, $1.element.column, $1.offset)
        }
        throw SchemaErrors(ordered.map(\.element))
    }

    /// `DEFINE SCHEMA [ { create-role | record-type } ";" ] ...`
    private mutating func parseStatements() throws(SchemaError) {
        guard peek.isKeyword("DEFINE") else {
            throw peek.error("expected DEFINE SCHEMA at the start of the schema, found \(peek.quotedForMessage)")
        }
        advance()
        try expectKeyword("SCHEMA", "after DEFINE")
        while peek.kind != .end {
            let statement: String
            if peek.isKeyword("CREATE") {
                statement = "role '\(try parseRole())'"
            } else if peek.isKeyword("RECORD") {
                statement = "record type '\(try parseRecordType())'"
            } else {
                throw peek.error(
                    "expected CREATE ROLE, RECORD TYPE or the end of the schema, found \(peek.quotedForMessage)")
            }
            try expect(";", "after \(statement)")
        }
    }

    /// `CREATE ROLE %role-name%`; returns the name.
    private mutating func parseRole() throws(SchemaError) -> String {
        advance()
        try expectKeyword("ROLE", "after CREATE")
        let (role, token) = try name("a role name")
        if let problem = SchemaNames.problem(withRole: role) {
            problems.append(token.error(problem))
        } else if schema.roles.contains(role) {
            problems.append(token.error("role '\(role)' is created twice"))
        }
        schema.roles.insert(role)
        return role
    }

    /// Records a problem when no role the schema creates, and no implicit role, has the name
    /// of a grant.
    private mutating func checkGrantedRoles() {
        for grant in grantedRoles
        where !schema.roles.contains(grant.role) && !CloudKitSchema.implicitRoles.contains(grant.role) {
            problems.append(grant.token.error(SchemaNames.unknownRole(grant.role, in: grant.recordType)))
        }
    }

    // MARK: Tokens

    /// The next token, not consumed.
    var peek: SchemaToken { tokens[position] }

    /// Consumes and returns the next token (the end stays the end).
    @discardableResult
    mutating func advance() -> SchemaToken {
        let token = tokens[position]
        if token.kind != .end { position += 1 }
        return token
    }

    /// Consumes `symbol`, or fails naming what `context` expected it (`after …`).
    mutating func expect(_ symbol: Character, _ context: String) throws(SchemaError) {
        guard peek.isSymbol(symbol) else {
            throw peek.error("expected '\(symbol)' \(context), found \(peek.quotedForMessage)")
        }
        advance()
    }

    /// Consumes the keyword `keyword`, or fails.
    mutating func expectKeyword(_ keyword: String, _ context: String) throws(SchemaError) {
        guard peek.isKeyword(keyword) else {
            throw peek.error("expected \(keyword) \(context), found \(peek.quotedForMessage)")
        }
        advance()
    }

    /// A name (`what`, such as `a field name`): a bare word or a quoted name. A bare
    /// reserved word or system name is recorded as a problem and read as the name.
    mutating func name(_ what: String) throws(SchemaError) -> (String, SchemaToken) {
        let token = advance()
        switch token.kind {
        case .quoted(let name):
            return (name, token)
        case .word(let word):
            if SchemaNames.reservedWords.contains(word.lowercased()) {
                problems.append(token.error("'\(word)' is a reserved word: write it in double quotes, \"\(word)\""))
            } else if word.hasPrefix("_") {
                problems.append(token.error("write the system name '\(word)' in double quotes, \"\(word)\""))
            }
            return (word, token)
        case .symbol, .end:
            throw token.error("expected \(what), found \(token.quotedForMessage)")
        }
    }
}
