import Foundation

/// A recursive-descent parser for CloudKit's predicate format syntax.
///
/// Grammar (keywords case-insensitive):
///
///     predicate  := or END
///     or         := and (("OR" | "||") and)*
///     and        := not (("AND" | "&&") not)*
///     not        := ("NOT" | "!") not | primary
///     primary    := "(" or ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison
///     comparison := ["ANY" | "SOME" | "ALL" | "NONE"] operand operator ["[" flags "]"] operand
///     operand    := key | "%K" | "SELF" | literal | specifier | "{" operands "}" | function
///     function   := "now()" | "distanceToLocation:fromLocation:(" operand "," operand ")"
///                 | "CAST(" number "," "'NSDate'" ")"
struct PredicateParser {
    private let tokens: [PredicateToken]
    private var index = 0
    private let arguments: [Any]
    private var argumentIndex = 0

    /// A parser of `format` that takes argument values from `arguments` in order.
    init(format: String, arguments: [Any]) throws(QueryPredicateError) {
        tokens = try PredicateLexer.tokens(of: format)
        self.arguments = arguments
        try Self.checkNesting(tokens)
    }

    /// The deepest nesting the parser accepts: brackets and chained `NOT`s each recurse, and a
    /// format string from an untrusted source (stratusd decodes submitted requests, decision
    /// 0014.8) must not exhaust the stack.
    static let maximumNesting = 200

    /// Refuses a format whose brackets and `NOT`s nest deeper than ``maximumNesting`` in
    /// total: the depth inside a bracket is the depth before it, plus the `NOT`s that lead up to
    /// it, plus one — so `NOT NOT (NOT (…` counts every level, not each run of `NOT`s apart.
    private static func checkNesting(_ tokens: [PredicateToken]) throws(QueryPredicateError) {
        var bases = [0]
        var negations = 0
        for token in tokens {
            if token.isSymbol("(") || token.isSymbol("{") {
                bases.append((bases.last ?? 0) + negations + 1)
                negations = 0
            } else if token.isSymbol(")") || token.isSymbol("}") {
                if bases.count > 1 { bases.removeLast() }
                negations = 0
            } else {
                negations = token.keyword == .not || token.isSymbol("!") ? negations + 1 : 0
            }
            if (bases.last ?? 0) + negations > maximumNesting {
                throw QueryPredicateError(
                    .syntax, "The predicate nests more than \(maximumNesting) levels deep", position: token.position)
            }
        }
    }

    /// The expression the whole format string denotes.
    mutating func parse() throws(QueryPredicateError) -> QueryPredicate {
        if current.kind == .end {
            throw QueryPredicateError(.syntax, "Empty predicate format string", position: 0)
        }
        let expression = try parseOr()
        guard current.kind == .end else {
            if current.isSymbol(")") {
                throw QueryPredicateError(.syntax, "Unbalanced ')': no matching '('", position: current.position)
            }
            throw QueryPredicateError(
                .syntax,
                "Unexpected '\(current.spelling)' after a complete predicate; expected AND, OR or the end",
                position: current.position
            )
        }
        return expression
    }

    // MARK: - Tokens

    private var current: PredicateToken { tokens[index] }

    private mutating func advance() -> PredicateToken {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    private var previousSpelling: String {
        index > 0 ? tokens[index - 1].spelling : "the start"
    }

    private mutating func expectSymbol(_ symbol: String, _ message: @autoclosure () -> String)
        throws(QueryPredicateError)
    {
        guard current.isSymbol(symbol) else {
            throw QueryPredicateError(.syntax, message(), position: current.position)
        }
        _ = advance()
    }

    // MARK: - Logic

    private mutating func parseOr() throws(QueryPredicateError) -> QueryPredicate {
        var operands = [try parseAnd()]
        while current.keyword == .or || current.isSymbol("||") {
            _ = advance()
            operands.append(try parseAnd())
        }
        guard operands.count > 1 else { return operands[0] }
        return .or(
            operands.flatMap { operand -> [QueryPredicate] in
                if case .or(let nested) = operand { return nested }
                return [operand]
            })
    }

    private mutating func parseAnd() throws(QueryPredicateError) -> QueryPredicate {
        var operands = [try parseNot()]
        while current.keyword == .and || current.isSymbol("&&") {
            _ = advance()
            operands.append(try parseNot())
        }
        guard operands.count > 1 else { return operands[0] }
        return .and(
            operands.flatMap { operand -> [QueryPredicate] in
                if case .and(let nested) = operand { return nested }
                return [operand]
            })
    }

    private mutating func parseNot() throws(QueryPredicateError) -> QueryPredicate {
        if current.keyword == .not || current.isSymbol("!") {
            _ = advance()
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws(QueryPredicateError) -> QueryPredicate {
        if current.isSymbol("(") {
            let open = advance()
            if current.isSymbol(")") {
                throw QueryPredicateError(
                    .syntax, "Empty parentheses: expected a predicate", position: current.position)
            }
            let expression = try parseOr()
            guard current.isSymbol(")") else {
                if current.kind == .end {
                    throw QueryPredicateError(
                        .syntax,
                        "Unbalanced '(': missing ')' to close the '(' at offset \(open.position)",
                        position: open.position
                    )
                }
                throw QueryPredicateError(
                    .syntax,
                    "Expected ')' to close the '(' at offset \(open.position), found '\(current.spelling)'",
                    position: current.position
                )
            }
            _ = advance()
            return expression
        }
        switch current.keyword {
        case .truePredicate:
            _ = advance()
            return .true
        case .falsePredicate:
            _ = advance()
            return .false
        default:
            return try parseComparison()
        }
    }

    // MARK: - Comparisons

    private mutating func parseComparison() throws(QueryPredicateError) -> QueryPredicate {
        var quantifier = PredicateQuantifier.direct
        var negate = false
        switch current.keyword {
        case .any, .someKeyword:
            _ = advance()
            quantifier = .any
        case .all:
            _ = advance()
            quantifier = .all
        case .noneKeyword:
            _ = advance()
            quantifier = .any
            negate = true
        default:
            break
        }
        let left = try parseOperand()
        let operatorToken = current
        let comparisonOperator = try parseOperator()
        let options = try parseOptions()
        if current.kind == .end {
            throw QueryPredicateError(
                .syntax,
                "Missing right-hand side after '\(operatorToken.spelling)'",
                position: current.position
            )
        }
        let right = try parseOperand()
        let comparison = PredicateComparison(
            left, comparisonOperator, right, quantifier: quantifier, options: options
        )
        return negate ? .not(.comparison(comparison)) : .comparison(comparison)
    }

    private mutating func parseOperator() throws(QueryPredicateError) -> PredicateOperator {
        let token = current
        if let keyword = token.keyword, let comparisonOperator = keyword.comparisonOperator {
            _ = advance()
            return comparisonOperator
        }
        if case .symbol(let symbol) = token.kind {
            let symbols: [String: PredicateOperator] = [
                "=": .equalTo, "==": .equalTo, "!=": .notEqualTo, "<>": .notEqualTo,
                "<": .lessThan, "<=": .lessThanOrEqualTo, "=<": .lessThanOrEqualTo,
                ">": .greaterThan, ">=": .greaterThanOrEqualTo, "=>": .greaterThanOrEqualTo,
            ]
            if let comparisonOperator = symbols[symbol] {
                _ = advance()
                return comparisonOperator
            }
            if ["+", "-", "*", "/", "**"].contains(symbol) {
                throw QueryPredicateError(
                    .unsupported,
                    "Arithmetic ('\(symbol)') is not supported in CloudKit predicates",
                    position: token.position
                )
            }
        }
        if token.kind == .end {
            throw QueryPredicateError(
                .syntax,
                "Incomplete comparison: expected an operator after '\(previousSpelling)'",
                position: token.position
            )
        }
        throw QueryPredicateError(
            .syntax,
            "Unknown operator '\(token.spelling)': expected a comparison operator (=, !=, <, <=, >, >=, BETWEEN, BEGINSWITH, CONTAINS, IN) after '\(previousSpelling)'",
            position: token.position
        )
    }

    private mutating func parseOptions() throws(QueryPredicateError) -> PredicateStringOptions {
        guard current.isSymbol("[") else { return [] }
        let open = advance()
        guard case .identifier(let flags) = current.kind else {
            throw QueryPredicateError(
                .syntax, "Expected comparison modifiers such as [c] or [cd] after '['", position: current.position)
        }
        _ = advance()
        var options: PredicateStringOptions = []
        for flag in flags {
            switch flag {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n", "l": break
            default:
                throw QueryPredicateError(
                    .syntax,
                    "Unknown comparison modifier '\(flag)' in '[\(flags)]'; expected c, d or cd",
                    position: open.position
                )
            }
        }
        try expectSymbol("]", "Missing ']' after the comparison modifiers '[\(flags)'")
        return options
    }

    // MARK: - Operands

    private mutating func parseOperand() throws(QueryPredicateError) -> PredicateOperand {
        let token = current
        switch token.kind {
        case .identifier(let name):
            _ = advance()
            if let keyword = PredicateKeyword(name) {
                return try operand(for: keyword, token: token)
            }
            if current.isSymbol("(") {
                return try parseFunction(name: name, token: token)
            }
            return .key(try parseKeyPath(first: name))
        case .escapedIdentifier(let name):
            _ = advance()
            return .key(try parseKeyPath(first: name))
        case .selector(let name):
            _ = advance()
            return try parseFunction(name: name, token: token)
        case .string(let string):
            _ = advance()
            return .constant(.string(string))
        case .integer(let value):
            _ = advance()
            return .constant(.int(value))
        case .double(let value):
            _ = advance()
            return .constant(.double(value))
        case .integerMinMagnitude:
            throw QueryPredicateError(
                .syntax, "Integer literal \(token.spelling) is too large", position: token.position)
        case .specifier(let specifier):
            _ = advance()
            return try substitute(specifier: specifier, token: token)
        case .variable(let name):
            throw QueryPredicateError(
                .unsupported,
                "Substitution variables ('$\(name)') are not supported; pass the value as a %@ argument",
                position: token.position
            )
        case .symbol("{"):
            return try parseAggregate()
        case .symbol("-"):
            _ = advance()
            switch current.kind {
            case .integer(let value):
                _ = advance()
                return .constant(.int(-value))
            case .double(let value):
                _ = advance()
                return .constant(.double(-value))
            case .integerMinMagnitude:
                _ = advance()
                return .constant(.int(.min))
            default:
                throw QueryPredicateError(
                    .unsupported, "Arithmetic ('-') is not supported in CloudKit predicates", position: token.position)
            }
        case .symbol(let symbol):
            if symbol == "(" {
                throw QueryPredicateError(
                    .syntax,
                    "Unexpected '(' where a key or a value was expected",
                    position: token.position
                )
            }
            throw QueryPredicateError(
                .syntax,
                "Expected a key or a value, found '\(symbol)'",
                position: token.position
            )
        case .end:
            throw QueryPredicateError(
                .syntax,
                "Unexpected end of the predicate after '\(previousSpelling)': expected a key or a value",
                position: token.position
            )
        }
    }

    private mutating func operand(for keyword: PredicateKeyword, token: PredicateToken) throws(QueryPredicateError)
        -> PredicateOperand
    {
        switch keyword {
        case .true, .yes:
            return .constant(.bool(true))
        case .false, .no:
            return .constant(.bool(false))
        case .nil, .null:
            return .constant(.null)
        case .self:
            if current.isSymbol(".") {
                _ = advance()
                guard case .identifier(let name) = current.kind else {
                    throw QueryPredicateError(.syntax, "Expected a key after 'SELF.'", position: current.position)
                }
                _ = advance()
                return .key(try parseKeyPath(first: name))
            }
            return .evaluatedObject
        default:
            throw QueryPredicateError(
                .syntax,
                "Expected a key or a value, found the keyword '\(token.spelling)' (write #\(token.spelling) for a key of that name)",
                position: token.position
            )
        }
    }

    private mutating func parseKeyPath(first: String) throws(QueryPredicateError) -> String {
        var path = first
        while current.isSymbol(".") {
            let dot = advance()
            switch current.kind {
            case .identifier(let name), .escapedIdentifier(let name):
                _ = advance()
                path += "." + name
            default:
                throw QueryPredicateError(
                    .syntax, "Expected a key after '.' in the key path '\(path).'", position: dot.position)
            }
        }
        return path
    }

    private mutating func parseAggregate() throws(QueryPredicateError) -> PredicateOperand {
        let open = advance()
        var elements: [PredicateOperand] = []
        if current.isSymbol("}") {
            _ = advance()
            return .constant(.list([]))
        }
        while true {
            if current.kind == .end {
                throw QueryPredicateError(
                    .syntax,
                    "Unbalanced '{': missing '}' to close the aggregate at offset \(open.position)",
                    position: open.position
                )
            }
            elements.append(try parseOperand())
            if current.isSymbol(",") {
                _ = advance()
                continue
            }
            if current.isSymbol("}") {
                _ = advance()
                break
            }
            if current.kind == .end {
                throw QueryPredicateError(
                    .syntax,
                    "Unbalanced '{': missing '}' to close the aggregate at offset \(open.position)",
                    position: open.position
                )
            }
            throw QueryPredicateError(
                .syntax,
                "Expected ',' or '}' in the aggregate, found '\(current.spelling)'",
                position: current.position
            )
        }
        var constants: [PredicateValue] = []
        for element in elements {
            guard case .constant(let value) = element else { return .aggregate(elements) }
            constants.append(value)
        }
        return .constant(.list(constants))
    }

    private mutating func parseArguments(of name: String) throws(QueryPredicateError) -> [PredicateOperand] {
        let open = advance()
        var operands: [PredicateOperand] = []
        if current.isSymbol(")") {
            _ = advance()
            return operands
        }
        while true {
            operands.append(try parseOperand())
            if current.isSymbol(",") {
                _ = advance()
                continue
            }
            if current.isSymbol(")") {
                _ = advance()
                return operands
            }
            throw QueryPredicateError(
                .syntax,
                "Expected ',' or ')' in the arguments of '\(name)' opened at offset \(open.position), found '\(current.spelling)'",
                position: current.position
            )
        }
    }

    private mutating func parseFunction(name: String, token: PredicateToken) throws(QueryPredicateError)
        -> PredicateOperand
    {
        guard current.isSymbol("(") else {
            throw QueryPredicateError(.syntax, "Expected '(' after the function '\(name)'", position: current.position)
        }
        switch name {
        case "distanceToLocation:fromLocation:":
            let operands = try parseArguments(of: name)
            guard operands.count == 2 else {
                throw QueryPredicateError(
                    .syntax,
                    "distanceToLocation:fromLocation: takes 2 arguments (a location field and a location), got \(operands.count)",
                    position: token.position
                )
            }
            return .distance(operands[0], operands[1])
        case _ where name.lowercased() == "now":
            let operands = try parseArguments(of: name)
            guard operands.isEmpty else {
                throw QueryPredicateError(.syntax, "now() takes no arguments", position: token.position)
            }
            return .now
        case _ where name.uppercased() == "CAST":
            let operands = try parseArguments(of: name)
            guard operands.count == 2, case .constant(.string(let type)) = operands[1] else {
                throw QueryPredicateError(
                    .syntax, "CAST takes a value and a type name, as in CAST(0, 'NSDate')", position: token.position)
            }
            guard type == "NSDate" else {
                throw QueryPredicateError(
                    .unsupported, "CAST to '\(type)' is not supported; only CAST(seconds, 'NSDate')",
                    position: token.position)
            }
            switch operands[0] {
            case .constant(.int(let seconds)):
                return .constant(.date(Date(timeIntervalSinceReferenceDate: Double(seconds))))
            case .constant(.double(let seconds)):
                return .constant(.date(Date(timeIntervalSinceReferenceDate: seconds)))
            case .constant(.date(let date)):
                return .constant(.date(date))
            default:
                throw QueryPredicateError(
                    .syntax, "CAST(…, 'NSDate') needs a number of seconds since 2001-01-01", position: token.position)
            }
        default:
            throw QueryPredicateError(
                .unsupported,
                "The function '\(name)' is not supported in CloudKit predicates (supported: distanceToLocation:fromLocation:, now)",
                position: token.position
            )
        }
    }

    // MARK: - Arguments

    private mutating func nextArgument(for token: PredicateToken) throws(QueryPredicateError) -> Any {
        guard argumentIndex < arguments.count else {
            throw QueryPredicateError(
                .argument,
                "Too few arguments: '\(token.spelling)' needs argument \(argumentIndex + 1) but \(arguments.count) \(arguments.count == 1 ? "was" : "were") given",
                position: token.position
            )
        }
        let argument = arguments[argumentIndex]
        argumentIndex += 1
        return argument
    }

    private mutating func substitute(specifier: String, token: PredicateToken) throws(QueryPredicateError)
        -> PredicateOperand
    {
        let argument = try nextArgument(for: token)
        let value: PredicateValue
        do {
            value = try PredicateValue(argument: argument)
        } catch {
            throw QueryPredicateError(
                error.code,
                "Argument \(argumentIndex) for '\(token.spelling)': \(error.message)",
                position: token.position
            )
        }
        let conversion = specifier.last ?? "@"
        switch conversion {
        case "@":
            return .constant(value)
        case "K":
            guard case .string(let key) = value, !key.isEmpty else {
                throw QueryPredicateError(
                    .argument,
                    "Argument \(argumentIndex) for '%K' must be a key name (a non-empty string), got \(PredicateParser.typeName(of: argument))",
                    position: token.position
                )
            }
            return .key(key)
        case "s":
            guard case .string = value else {
                throw QueryPredicateError(
                    .argument,
                    "Argument \(argumentIndex) for '%s' must be a string, got \(PredicateParser.typeName(of: argument))",
                    position: token.position
                )
            }
            return .constant(value)
        case "f", "F", "e", "E", "g", "G":
            switch value {
            case .double: return .constant(value)
            case .int(let integer): return .constant(.double(Double(integer)))
            default:
                throw QueryPredicateError(
                    .argument,
                    "Argument \(argumentIndex) for '\(token.spelling)' must be a number, got \(PredicateParser.typeName(of: argument))",
                    position: token.position
                )
            }
        default:
            switch value {
            case .int: return .constant(value)
            case .bool(let flag): return .constant(.int(flag ? 1 : 0))
            default:
                throw QueryPredicateError(
                    .argument,
                    "Argument \(argumentIndex) for '\(token.spelling)' must be an integer, got \(PredicateParser.typeName(of: argument))",
                    position: token.position
                )
            }
        }
    }

    private static func typeName(of argument: Any) -> String {
        String(describing: type(of: argument))
    }
}
