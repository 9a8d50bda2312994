/// What is wrong with one JSON value for its type tag, before the translator adds the field's
/// name and tag to make a ``WSTranslationError``.
package struct WSValueProblem: Error {
    /// What is wrong, without the field: "expected a string, found an integer (3)".
    package var message: String

    /// A problem.
    package init(_ message: String) {
        self.message = message
    }

    /// "expected a string, found an integer (3)".
    package static func expected(_ what: String, found value: JSONValue) -> WSValueProblem {
        WSValueProblem("expected \(what), found \(value.briefDescription)")
    }
}
