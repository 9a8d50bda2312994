import Foundation
import Stratus

/// Change tokens as base64 text: the keyed archive of a `CKServerChangeToken`, as an app
/// would persist it.
enum TokenText {
    /// `token` as base64.
    static func encode(_ token: CKServerChangeToken) throws -> String {
        try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true).base64EncodedString()
    }

    /// The token `text` encodes.
    static func decode(_ text: String) throws -> CKServerChangeToken {
        guard let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)),
            let token = try? NSKeyedUnarchiver.unarchivedObject(ofClass: CKServerChangeToken.self, from: data)
        else {
            throw CLIError(
                "--token is not a change token printed by stratus (base64 of an archived CKServerChangeToken)",
                exitCode: CLIError.usage)
        }
        return token
    }
}
