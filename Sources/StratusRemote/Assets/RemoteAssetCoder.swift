import Foundation
import Stratus
import StratusWebServices

/// ASSET fields between a remote container and its server: a saved asset is written as its
/// upload's receipt; a fetched one `{fileChecksum, size, downloadURL}` is downloaded into a
/// file of the bounded local cache (``RemoteAssetCache``), which the app's `CKAsset.fileURL`
/// names, as a fetched asset's does.
struct RemoteAssetCoder: WSAssetCoding {
    let transport: RemoteTransport
    /// The assets this save uploaded, by ``key(_:)``.
    var uploaded: [String: RemoteUploadedAsset] = [:]

    /// What identifies an asset of a save: its file. (A record hands out a new `CKAsset` for
    /// each read of a field, so the object itself cannot.)
    static func key(_ asset: CKAsset) -> String {
        asset.fileURL?.standardizedFileURL.path ?? ""
    }

    func dictionary(for asset: CKAsset) -> JSONValue? {
        uploaded[Self.key(asset)]?.receipt
    }

    func asset(from value: JSONValue) throws(WSValueProblem) -> CKAsset {
        var checksum: String?
        if case .string(let text)? = value["fileChecksum"] { checksum = text }
        // A saved record's echo names content this save just sent: the app's own asset.
        if let checksum, let mine = uploaded.values.first(where: { $0.checksum == checksum }) {
            return mine.asset
        }
        guard case .string(let url)? = value["downloadURL"] else {
            throw WSValueProblem("an ASSET field without a downloadURL")
        }
        do {
            let cache = RemoteAssetCache(transport.server.assetCache)
            return CKAsset(fileURL: try cache.file(for: url, checksum: checksum, transport: transport))
        } catch {
            throw WSValueProblem("its content cannot be downloaded: \(error.localizedDescription)")
        }
    }
}
