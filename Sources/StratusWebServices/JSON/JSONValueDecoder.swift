/// Decodes `Decodable` request types from a ``JSONValue``, with errors that name the JSON path.
///
/// Unknown keys are ignored; a missing required key, a `null` where a value is required, or a
/// value of the wrong kind throws ``JSONDecodeError``. Numbers decode into integer types only
/// when integral and in range, into `Double` from any number; `JSONValue` members are taken
/// exactly as parsed (an `Int64` stays exact, `1` stays distinct from `1.0`).
package struct JSONValueDecoder: Sendable {
    /// A decoder.
    package init() {}

    /// Decodes a `T` from `value`.
    ///
    /// - Throws: ``JSONDecodeError``, or an error a type's own `init(from:)` throws.
    package func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        do {
            return try JSONValueDecoding(value: value, codingPath: []).decode(type)
        } catch let error as DecodingError {
            throw JSONDecodeError(error)
        }
    }

    /// Parses `bytes` and decodes a `T` from them.
    ///
    /// - Throws: ``JSONParseError`` for malformed JSON, then as ``decode(_:from:)-(_,JSONValue)``.
    package func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try decode(type, from: try JSONValue.parse(bytes))
    }
}
