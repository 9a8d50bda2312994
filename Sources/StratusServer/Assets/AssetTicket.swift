import Crypto
import Foundation
internal import StratusWebServices

/// A signed statement of the server's about assets (decision 0012.8): an upload URL's grant, a
/// receipt, or a download URL. Its fields travel in the clear (a JSON array of strings in
/// base64url); the HMAC-SHA256 signature, with the server's key, covers what the ticket is for,
/// the fields and the expiry, so no field can be changed or moved to another kind of ticket.
package struct AssetTicket: Sendable, Equatable {
    /// What a ticket allows; part of what is signed.
    package enum Purpose: String, Sendable {
        /// An upload URL's grant.
        case upload
        /// A receipt for staged content.
        case receipt
        /// A download URL's ticket.
        case download
    }

    /// What it allows.
    package var purpose: Purpose
    /// What it states (the database, the content, …).
    package var fields: [String]
    /// Seconds since 1970 after which the ticket is refused.
    package var expiry: Int64

    /// A ticket for `purpose` stating `fields`, valid until `expiry` (seconds since 1970).
    package init(purpose: Purpose, fields: [String], expiry: Int64) {
        self.purpose = purpose
        self.fields = fields
        self.expiry = expiry
    }

    /// The fields as unpadded base64url of a JSON array of strings.
    package var encodedFields: String {
        AssetTicket.base64URL(JSONValue.array(fields.map(JSONValue.string)).serialized())
    }

    /// The signature with `key`, in unpadded base64url.
    package func signature(_ key: SymmetricKey) -> String {
        AssetTicket.base64URL(Array(HMAC<SHA256>.authenticationCode(for: message, using: key)))
    }

    /// Whether `signature` (base64url) is this ticket's with `key`, compared in constant time.
    package func isSigned(_ signature: String, with key: SymmetricKey) -> Bool {
        guard let code = AssetTicket.bytes(base64URL: signature) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: message, using: key)
    }

    private var message: [UInt8] {
        Array("stratus-asset-\(purpose.rawValue)\n\(encodedFields)\n\(expiry)".utf8)
    }

    /// The ticket whose encoded fields are `text`; `nil` when they are not a JSON array of
    /// strings in base64url.
    package static func decode(purpose: Purpose, fields text: String, expiry: Int64) -> AssetTicket? {
        guard let bytes = bytes(base64URL: text), case .array(let items)? = try? JSONValue.parse(bytes) else {
            return nil
        }
        var fields: [String] = []
        for item in items {
            guard case .string(let field) = item else { return nil }
            fields.append(field)
        }
        return AssetTicket(purpose: purpose, fields: fields, expiry: expiry)
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func bytes(base64URL text: String) -> [UInt8]? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            return nil
        }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map(Array.init)
    }
}
