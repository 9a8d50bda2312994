/// A recursive-descent JSON parser (RFC 8259) over a byte buffer, producing ``JSONValue``.
///
/// Strict: no comments, trailing commas, leading zeros, non-finite numbers, unescaped control
/// characters, invalid UTF-8, lone surrogates or duplicate keys; nothing but whitespace after
/// the value. An integer outside `Int64` is refused rather than rounded (CloudKit's INT64).
/// Nesting is limited to ``JSONValue/maximumNestingDepth`` so a hostile body cannot exhaust the stack.
struct JSONParser {
    static var maximumDepth: Int { JSONValue.maximumNestingDepth }

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Parses the whole input as one JSON value.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count {
            throw fail("unexpected \(describe(bytes[index])) after the JSON value")
        }
        return value
    }

    // MARK: Values

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case let byte: throw fail("unexpected \(describe(byte)), expected a value")
        }
    }

    private mutating func parseLiteral(_ word: StaticString, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let start = index
        for expected in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
            guard index < bytes.count, bytes[index] == expected else {
                throw JSONParseError(offset: start, reason: "invalid literal, expected '\(word)'")
            }
            index += 1
        }
        return value
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        var items: [JSONValue] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(items)
            default:
                throw fail("expected ',' or ']' in an array, found \(describePeek())")
            }
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { throw fail("expected a string key, found \(describePeek())") }
            let keyOffset = index
            let key = try parseString()
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw fail("expected ':' after a key, found \(describePeek())") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            if members.updateValue(value, forKey: key) != nil {
                throw JSONParseError(
                    offset: keyOffset, reason: "duplicate key \(JSONValue.string(key).serializedString())")
            }
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(members)
            default:
                throw fail("expected ',' or '}' in an object, found \(describePeek())")
            }
        }
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > JSONParser.maximumDepth {
            throw fail("nesting deeper than \(JSONParser.maximumDepth) levels")
        }
        index += 1
    }

    // MARK: Helpers

    /// The current byte, or 0 at the end (0 is never valid where `peek` is tested).
    var peek: UInt8 { index < bytes.count ? bytes[index] : 0 }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    func fail(_ reason: String) -> JSONParseError {
        JSONParseError(offset: index, reason: reason)
    }

    func describePeek() -> String {
        index < bytes.count ? describe(bytes[index]) : "the end of input"
    }

    func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x\(hex.count == 1 ? "0" + hex : hex)"
    }

    // MARK: Numbers and strings (JSONParser+Scalars.swift)

    var position: Int {
        get { index }
        set { index = newValue }
    }

    var input: UnsafeRawBufferPointer { bytes }
}
