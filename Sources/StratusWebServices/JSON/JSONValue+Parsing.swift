import Foundation

extension JSONValue {
    /// The deepest nesting of arrays and objects the parser accepts (CloudKit bodies nest about
    /// 10 deep); deeper input is refused so a hostile body cannot exhaust the stack.
    package static let maximumNestingDepth = 128

    /// Parses one JSON document (RFC 8259, strict: see ``JSONParser``).
    ///
    /// - Throws: ``JSONParseError`` with the byte offset of the problem.
    package static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        return try parser.parseDocument()
    }

    /// Parses one JSON document from bytes.
    package static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBytes { raw in Result { () throws(JSONParseError) in try parse(raw) } }.get()
    }

    /// Parses one JSON document from data.
    package static func parse(_ data: Data) throws(JSONParseError) -> JSONValue {
        try data.withUnsafeBytes { raw in Result { () throws(JSONParseError) in try parse(raw) } }.get()
    }

    /// Parses one JSON document from a string's UTF-8.
    package static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// A number written as a string, as `numbersAsStrings` clients send them: the string must
    /// be a JSON number (`"12"`, `"-1.5e3"`), giving `integer` or `double` as ``parse(_:)-([UInt8])``
    /// would; `nil` otherwise (including `"NaN"` and `"Infinity"`).
    package static func number(fromString text: String) -> JSONValue? {
        let isTrimmed = text.utf8.first.map { $0 == UInt8(ascii: "-") || ($0 >= 0x30 && $0 <= 0x39) } ?? false
        guard isTrimmed, text.utf8.last.map({ $0 >= 0x30 && $0 <= 0x39 }) == true, let value = try? parse(text) else {
            return nil
        }
        switch value {
        case .integer, .double: return value
        default: return nil
        }
    }
}
