import Foundation
internal import Stratus
internal import StratusWebServices

extension SyncTokenText {
    /// The bytes of `text`, named `name` in the refusal.
    ///
    /// - Throws: 400 `BAD_REQUEST` when `text` is not unpadded base64url.
    static func decode(_ text: String, name: String) throws(ServerError) -> Data {
        guard let data = data(text) else {
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
