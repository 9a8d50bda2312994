/// A record dictionary the translator cannot turn into a record: the server answers 400
/// `BAD_REQUEST` with ``reason``, which names the field and its type tag.
package struct WSTranslationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The field at fault, if one is (`nil` for record-level problems such as a missing type).
    package var field: String?
    /// What is wrong, for people: "Field 'count' (INT64): expected an integer, found …".
    package var reason: String

    /// Whether the request is refused for its size, not its form: the engine's
    /// `limitExceeded`, which the server names in `stratusErrorCode`.
    package var exceedsALimit = false

    /// An error.
    package init(field: String? = nil, reason: String, exceedsALimit: Bool = false) {
        self.field = field
        self.reason = reason
        self.exceedsALimit = exceedsALimit
    }

    /// The reason.
    package var description: String { reason }
}
