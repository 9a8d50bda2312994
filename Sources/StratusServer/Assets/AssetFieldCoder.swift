import Crypto
import Foundation
package import Stratus
package import StratusWebServices

/// ASSET fields of one request's database (decision 0012.8): a receipt becomes the staged
/// content it names, and a fetched asset becomes `{fileChecksum, size, downloadURL}` with a
/// download URL valid for an hour.
package struct AssetFieldCoder: WSAssetCoding {
    let key: SymmetricKey
    let database: AssetDatabase
    /// `scheme://host:port` of the request, in front of download URLs.
    let origin: String
    let now: Date

    /// The coder for `database`, signing with `key`; `now` decides what has expired.
    package init(key: SymmetricKey, database: AssetDatabase, origin: String, now: Date = Date()) {
        self.key = key
        self.database = database
        self.origin = origin
        self.now = now
    }

    /// How long a download URL is valid.
    static let downloadLifetime: Int64 = 3600

    package func asset(from value: JSONValue) throws(WSValueProblem) -> CKAsset {
        guard case .string(let text)? = value["receipt"] else {
            throw .expected("an asset {receipt, …} with the receipt assets/upload's URL answered", found: value)
        }
        let receipt = try AssetReceipt(text, key: key, now: now)
        guard receipt.database == database else {
            throw WSValueProblem("the receipt was made for another database; upload the asset to this one")
        }
        return CKAsset(stagedContentID: receipt.contentID, size: receipt.size)
    }

    package func dictionary(for asset: CKAsset) -> JSONValue? {
        guard let contentID = asset.contentID else { return nil }
        let ticket = AssetTicket(
            purpose: .download, fields: database.fields + [contentID],
            expiry: Int64(now.timeIntervalSince1970) + Self.downloadLifetime)
        let url =
            "\(origin)/assets/1/download/\(ticket.encodedFields)?e=\(ticket.expiry)&s=\(ticket.signature(key))"
        var members: [String: JSONValue] = [
            "size": .integer(asset.contentSize ?? 0), "downloadURL": .string(url),
        ]
        // The checksum is the label of content the server staged (see AssetUploadRoute).
        if let dot = contentID.lastIndex(of: "."), dot != contentID.startIndex {
            members["fileChecksum"] = .string(String(contentID[..<dot]))
        }
        return .object(members)
    }
}
