/// A request body that is JSON but not of the expected shape: the JSON path of the problem
/// (`operations[3].record.fields.title.value`) and what is wrong there.
package struct JSONDecodeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where: keys joined by `.`, array indices as `[n]`; empty for the whole body.
    package var path: String
    /// What is wrong ("expected a string, found an integer (3)", "is required").
    package var reason: String

    /// An error at `path`.
    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// "operations[3].record.recordType: is required" (or just the reason at the top level).
    package var description: String { path.isEmpty ? reason : "\(path): \(reason)" }

    /// The path of `codingPath`, as ``path`` writes it.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            // Only the unkeyed container's keys are indices: a dictionary's key "7" has an
            // intValue too, but is a key.
            if key is JSONPathKey, let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }

    /// The error for a `DecodingError` thrown while decoding.
    init(_ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(path: JSONDecodeError.path(context.codingPath + [key]), reason: "is required")
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            self.init(path: JSONDecodeError.path(context.codingPath), reason: context.debugDescription)
        @unknown default:
            self.init(path: "", reason: String(describing: error))
        }
    }
}
