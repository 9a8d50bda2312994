/// A problem in schema text, at a line and column.
public struct SchemaError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The line, from 1.
    public var line: Int
    /// The column, from 1, in characters.
    public var column: Int
    /// What is wrong, such as `expected ';' after record type 'Note', found 'RECORD'`.
    public var message: String

    /// A problem at `line` and `column`.
    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    /// `line:column: message`.
    public var description: String { "\(line):\(column): \(message)" }
}

/// Every problem ``CloudKitSchema/parse(_:)`` found, in the order of the text.
public struct SchemaErrors: Error, Hashable, Sendable, CustomStringConvertible {
    /// The problems, at least one.
    public var errors: [SchemaError]

    /// The problems `errors`.
    public init(_ errors: [SchemaError]) {
        self.errors = errors
    }

    /// One problem per line.
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
