import Foundation

/// Declarations in one comparable form. Only differences that code calling the API cannot see
/// are removed (each rule says why); everything else — labels, types, optionality, `async`,
/// `throws`, `@discardableResult`, `@Sendable`, `@preconcurrency`, default values,
/// settability — must match.
enum DeclarationText {
    /// Types Stratus declares under their Objective-C names, with Apple's nested name as a
    /// typealias (both spellings work in client code), and the reverse for `CKAccountStatus`.
    static let appleNames: [(stratus: String, apple: String)] = [
        ("CKRecordZoneID", "CKRecordZone.ID"), ("CKRecordID", "CKRecord.ID"), ("CKReference", "CKRecord.Reference"),
        ("CKQueryCursor", "CKQueryOperation.Cursor"), ("CKNotificationID", "CKNotification.ID"),
        ("CKNotificationInfo", "CKSubscription.NotificationInfo"), ("CKContainer.AccountStatus", "CKAccountStatus"),
    ]

    /// `text` with Stratus's type names replaced by Apple's.
    static func applyingAppleNames(_ text: String) -> String {
        var result = text
        for (stratus, apple) in appleNames {
            result = replacing(wholeName: stratus, with: apple, in: result)
        }
        return result
    }

    /// The comparable form of a declaration of kind `kind` (a catalogue kind or a symbol
    /// graph kind), with Stratus's tuple typealiases (`name → tuple`) spelled out.
    static func normalized(_ declaration: String, kind: String, typealiases: [String: String] = [:]) -> String {
        var text = declaration.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        text = applyingAppleNames(text)
        for (name, tuple) in typealiases { text = replacing(wholeName: name, with: tuple, in: text) }
        // Dictionary colons and array literals as swift-format writes them: spelling only.
        text = text.replacingOccurrences(of: " : ", with: ": ")
        text = text.replacingOccurrences(of: "[ ", with: "[").replacingOccurrences(of: ", ]", with: "]")
        // Inheritance modifiers matter to subclasses only, never to callers.
        for word in ["final", "open", "convenience", "required", "override", "public"] {
            text = text.replacingOccurrences(of: #"\b"# + word + " ", with: "", options: .regularExpression)
        }
        text = text.replacingOccurrences(
            of: #"\bclass (func|var|let) "#, with: "static $1 ", options: .regularExpression)
        // Parameter names inside the body are invisible to callers; argument labels are kept.
        text = text.replacingOccurrences(
            of: #"(?<=[(,] |\()(\w+) (\w+)(?=:)"#, with: "$1", options: .regularExpression)
        return isProperty(kind) ? normalizedProperty(text) : text
    }

    /// A property as `var name: Type { get }` or `{ get set }`: `let` is a read-only `var`,
    /// a stored `var` is settable, and `@NSCopying` on a read-only property copies nothing a
    /// caller can see.
    private static func normalizedProperty(_ text: String) -> String {
        var text = text
        if text.range(of: #"(^|\s)let "#, options: .regularExpression) != nil {
            text =
                text.replacingOccurrences(of: #"(^|\s)let "#, with: "$1var ", options: .regularExpression) + " { get }"
        } else if !text.hasSuffix("}") {
            text += " { get set }"
        }
        if text.hasSuffix("{ get }") { text = text.replacingOccurrences(of: "@NSCopying ", with: "") }
        return text
    }

    private static func isProperty(_ kind: String) -> Bool {
        ["var", "let", "static-var", "static-let", "swift.property", "swift.type.property", "swift.var"].contains(kind)
    }

    private static func replacing(wholeName name: String, with replacement: String, in text: String) -> String {
        let pattern = #"(?<![\w.])"# + NSRegularExpression.escapedPattern(for: name) + #"(?!\w)"#
        return text.replacingOccurrences(
            of: pattern, with: NSRegularExpression.escapedTemplate(for: replacement), options: .regularExpression)
    }
}
