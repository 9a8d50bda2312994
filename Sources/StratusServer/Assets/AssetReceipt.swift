import Crypto
import Foundation
internal import Stratus
package import StratusWebServices

/// An upload's receipt (decision 0012.8): `fields.expiry.signature`, an HMAC-signed
/// `(database, content ID, size, expiry)`; a record save that carries it adopts the staged
/// content. Valid for 24 hours, as long as unadopted content is kept.
package struct AssetReceipt: Sendable {
    /// Where the content is staged.
    package var database: AssetDatabase
    /// The staged content.
    package var contentID: String
    /// Its size in bytes.
    package var size: Int64

    /// How long a receipt is valid (and staged content kept).
    package static let lifetime: Int64 = 24 * 3600

    /// A receipt for content `contentID` of `size` bytes staged in `database`.
    package init(database: AssetDatabase, contentID: String, size: Int64) {
        self.database = database
        self.contentID = contentID
        self.size = size
    }

    /// The receipt's text, signed with `key`, expiring `lifetime` after `now`.
    package func text(key: SymmetricKey, now: Date) -> String {
        let ticket = AssetTicket(
            purpose: .receipt, fields: database.fields + [contentID, String(size)],
            expiry: Int64(now.timeIntervalSince1970) + Self.lifetime)
        return "\(ticket.encodedFields).\(ticket.expiry).\(ticket.signature(key))"
    }

    /// The receipt `text` states, checked.
    ///
    /// - Throws: ``WSValueProblem`` when it is malformed, not signed with `key`, or expired.
    package init(_ text: String, key: SymmetricKey, now: Date) throws(WSValueProblem) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let expiry = Int64(parts[1]),
            let ticket = AssetTicket.decode(purpose: .receipt, fields: parts[0], expiry: expiry),
            ticket.isSigned(parts[2], with: key)
        else {
            throw WSValueProblem("the receipt is not one this server signed, or it was altered")
        }
        guard expiry > Int64(now.timeIntervalSince1970) else {
            throw WSValueProblem("the receipt expired; upload the asset again")
        }
        guard ticket.fields.count == 6, let database = AssetDatabase(fields: ticket.fields[0..<4]),
            let size = Int64(ticket.fields[5])
        else {
            throw WSValueProblem("the receipt is not one this server signed, or it was altered")
        }
        self.init(database: database, contentID: ticket.fields[4], size: size)
    }
}
