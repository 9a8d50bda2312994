import Foundation

/// `syncToken`, `metaSyncToken` and `continuationMarker` on the wire: the engine's own token
/// and cursor bytes in unpadded base64url (decision 0012.9). The engine judges the bytes;
/// this only refuses text that is not base64url.
package enum SyncTokenText {
    /// `data` as unpadded base64url.
    package static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of `text`, or `nil` when `text` is not unpadded base64url.
    package static func data(_ text: String) -> Data? {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        guard !text.isEmpty, text.allSatisfy(allowed.contains) else { return nil }
        return Data(base64Encoded: standard)
    }
}
