import Foundation
import Hummingbird
internal import Stratus

/// `syncToken`, `metaSyncToken` and `continuationMarker` on the wire: the engine's own token
/// and cursor bytes in unpadded base64url (decision 0012.9). The engine judges the bytes;
/// this only refuses text that is not base64url.
enum SyncTokenText {
    static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of `text`, named `name` in the refusal.
    ///
    /// - Throws: 400 `BAD_REQUEST` when `text` is not unpadded base64url.
    static func decode(_ text: String, name: String) throws(ServerError) -> Data {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        guard !text.isEmpty, text.allSatisfy(allowed.contains), let data = Data(base64Encoded: standard) else {
            throw .badRequest("\(name) is not a token this server issued (expected unpadded base64url)")
        }
        return data
    }

    /// The engine's token for `text`, or `nil` for none.
    static func token(_ text: String?, name: String) throws(ServerError) -> CKServerChangeToken? {
        guard let text else { return nil }
        return CKServerChangeToken(data: try decode(text, name: name))
    }
}
