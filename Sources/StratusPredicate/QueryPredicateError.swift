import Foundation

/// Why a predicate could not be parsed, is not allowed in a CloudKit query, or could not be
/// evaluated against a record.
///
/// The engine maps a `QueryPredicateError` to `CKError.invalidArguments` (``Code/limitExceeded``
/// to `CKError.limitExceeded`) and uses ``message``
/// as the error's description. Messages name the offending construct (the operator, the key,
/// the format specifier or the argument type) so that a client can find it in its format
/// string.
public struct QueryPredicateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable, Equatable, CustomStringConvertible {
        /// The format string is not valid predicate syntax (an unbalanced parenthesis, an
        /// unterminated string, an unknown operator, …).
        case syntax
        /// The arguments do not fit the format string: too few or too many, a `%K` that is not
        /// a string, or a value of a type that cannot be stored in a CloudKit record.
        case argument
        /// The predicate is valid `NSPredicate` syntax but CloudKit queries do not support it
        /// (`OR`, `ALL`, `ENDSWITH`, key paths into related records, …).
        case unsupported
        /// The predicate cannot be applied to a record's values (`CONTAINS` on a field that is
        /// not a list, …). Only raised by
        /// ``QueryPredicate/evaluateStrictly(_:now:)``.
        case evaluation
        /// The predicate holds more values than a CloudKit query allows
        /// (``QueryPredicate/maximumValues``). The engine maps it to `CKError.limitExceeded`.
        case limitExceeded

        /// The code's name (`syntax`, `argument`, `unsupported`, `evaluation`, `limitExceeded`).
        public var description: String { rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, naming the construct at fault.
    public var message: String
    /// The offset, in characters from the start of the format string, where a syntax or
    /// argument error was found; `nil` when the error is not tied to one place.
    public var position: Int?

    /// An error of `code` saying `message`, optionally at character offset `position`.
    public init(_ code: Code, _ message: String, position: Int? = nil) {
        self.code = code
        self.message = message
        self.position = position
    }

    /// The message, followed by the offset when there is one.
    public var description: String {
        if let position {
            return "\(message) (at offset \(position))"
        }
        return message
    }
}

extension QueryPredicateError: LocalizedError {
    /// The ``message``, so that `localizedDescription` reads it.
    public var errorDescription: String? { description }
}
