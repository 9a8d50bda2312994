/// Malformed JSON: what is wrong and where, as a byte offset from the start of the input.
package struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The offset of the offending byte (the input's length for a premature end).
    package var offset: Int
    /// What is wrong ("expected ',' or '}' in an object, found 'x'").
    package var reason: String

    /// An error at `offset`.
    package init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// "Malformed JSON at byte offset 12: …".
    package var description: String { "Malformed JSON at byte offset \(offset): \(reason)" }
}
