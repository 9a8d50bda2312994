/// Numbers and strings.
extension JSONParser {
    /// A number: `integer` when written without fraction or exponent (exactly, or an error when
    /// outside `Int64`), else a finite `double`.
    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = position
        var isInteger = true
        if peek == UInt8(ascii: "-") { position += 1 }
        guard isDigit(peek) else { throw fail("expected a digit in a number, found \(describePeek())") }
        if peek == UInt8(ascii: "0") {
            position += 1
            if isDigit(peek) { throw fail("a number must not have leading zeros") }
        } else {
            skipDigits()
        }
        if peek == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard isDigit(peek) else { throw fail("expected a digit after '.', found \(describePeek())") }
            skipDigits()
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { position += 1 }
            guard isDigit(peek) else { throw fail("expected a digit in an exponent, found \(describePeek())") }
            skipDigits()
        }
        let text = UnsafeRawBufferPointer(rebasing: input[start..<position])
        if isInteger {
            guard let value = JSONParser.integer(text) else {
                throw JSONParseError(
                    offset: start,
                    reason: "the integer \(String(decoding: text, as: UTF8.self)) does not fit in 64 bits "
                        + "(INT64 holds -9223372036854775808...9223372036854775807)")
            }
            return .integer(value)
        }
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else {
            throw JSONParseError(
                offset: start,
                reason: "the number \(String(decoding: text, as: UTF8.self)) is out of range for a double")
        }
        return .double(value)
    }

    /// The value of optionally signed decimal digits, or `nil` on overflow. Accumulates
    /// negatively so `Int64.min` parses.
    static func integer(_ text: UnsafeRawBufferPointer) -> Int64? {
        var digits = text[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        var value: Int64 = 0
        for byte in digits {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = times10.subtractingReportingOverflow(Int64(byte &- UInt8(ascii: "0")))
            if o1 || o2 { return nil }
            value = next
        }
        if negative { return value }
        return value == Int64.min ? nil : -value
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipDigits() {
        while isDigit(peek) { position += 1 }
    }

    /// A string; `position` is at its opening quote. Strings without escapes are made from
    /// the input bytes directly.
    mutating func parseString() throws(JSONParseError) -> String {
        let start = position
        position += 1
        let contentStart = position
        var isASCII = true
        while position < input.count {
            let byte = input[position]
            if byte == UInt8(ascii: "\"") {
                let content = UnsafeRawBufferPointer(rebasing: input[contentStart..<position])
                // ASCII needs no validation, and String(decoding:) is the faster initializer.
                let string = isASCII ? String(decoding: content, as: UTF8.self) : try makeString(content, start)
                position += 1
                return string
            }
            if byte >= 0x80 { isASCII = false }
            if byte == UInt8(ascii: "\\") {
                return try parseEscapedString(start: start, contentStart: contentStart)
            }
            if byte < 0x20 { throw fail("unescaped control character \(describe(byte)) in a string") }
            position += 1
        }
        throw JSONParseError(offset: start, reason: "unterminated string")
    }

    private mutating func parseEscapedString(start: Int, contentStart: Int) throws(JSONParseError) -> String {
        var buffer = [UInt8](UnsafeRawBufferPointer(rebasing: input[contentStart..<position]))
        while position < input.count {
            let byte = input[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return try makeString(buffer, start)
            case UInt8(ascii: "\\"):
                try appendEscape(to: &buffer)
            case ..<0x20:
                throw fail("unescaped control character \(describe(byte)) in a string")
            default:
                buffer.append(byte)
                position += 1
            }
        }
        throw JSONParseError(offset: start, reason: "unterminated string")
    }

    private mutating func appendEscape(to buffer: inout [UInt8]) throws(JSONParseError) {
        let escapeStart = position
        position += 1
        guard position < input.count else { throw JSONParseError(offset: escapeStart, reason: "unterminated string") }
        let simple: UInt8
        switch input[position] {
        case UInt8(ascii: "\""): simple = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): simple = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): simple = UInt8(ascii: "/")
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"):
            position += 1
            let scalar = try unicodeEscape(escapeStart)
            buffer.append(contentsOf: Array(String(Character(scalar)).utf8))
            return
        default:
            throw JSONParseError(offset: escapeStart, reason: "invalid escape '\\\(describePeek())'")
        }
        buffer.append(simple)
        position += 1
    }

    /// The scalar of `\uXXXX` (`position` after the `u`), combining a surrogate pair.
    private mutating func unicodeEscape(_ escapeStart: Int) throws(JSONParseError) -> Unicode.Scalar {
        let first = try hex4(escapeStart)
        if (0xDC00...0xDFFF).contains(first) {
            throw JSONParseError(offset: escapeStart, reason: "lone low surrogate \\u\(hexText(first)) in a string")
        }
        guard (0xD800...0xDBFF).contains(first) else { return Unicode.Scalar(first)! }
        let secondStart = position
        guard position + 1 < input.count, input[position] == UInt8(ascii: "\\"),
            input[position + 1] == UInt8(ascii: "u")
        else {
            throw JSONParseError(
                offset: escapeStart, reason: "high surrogate \\u\(hexText(first)) not followed by a low one")
        }
        position += 2
        let second = try hex4(secondStart)
        guard (0xDC00...0xDFFF).contains(second) else {
            throw JSONParseError(
                offset: escapeStart, reason: "high surrogate \\u\(hexText(first)) not followed by a low one")
        }
        return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
    }

    private mutating func hex4(_ escapeStart: Int) throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard position < input.count, let digit = hexDigit(input[position]) else {
                throw JSONParseError(offset: escapeStart, reason: "\\u must be followed by four hex digits")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    private func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    private func hexText(_ value: UInt32) -> String {
        String(value, radix: 16, uppercase: true)
    }

    private func makeString(_ bytes: some Sequence<UInt8>, _ start: Int) throws(JSONParseError) -> String {
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw JSONParseError(offset: start, reason: "the string starting here is not valid UTF-8")
        }
        return string
    }
}
