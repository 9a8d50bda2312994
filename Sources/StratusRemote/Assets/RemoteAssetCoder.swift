import Foundation
import Stratus
import StratusWebServices

/// ASSET fields between a remote container and its server: a saved asset is written as its
/// upload's receipt; a fetched one `{fileChecksum, size, downloadURL}` is downloaded into a
/// local cache file, which the app's `CKAsset.fileURL` names, as a fetched asset's does.
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
            return CKAsset(fileURL: try RemoteAssetCache.file(for: url, checksum: checksum, transport: transport))
        } catch {
            throw WSValueProblem("its content cannot be downloaded: \(error.localizedDescription)")
        }
    }
}

/// Where a remote container's fetched assets are kept: one file per content (by its SHA-256),
/// under the temporary directory, downloaded once.
enum RemoteAssetCache {
    static var directory: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("stratus-assets/remote", isDirectory: true)
    }

    /// The local file of the content at `url`, downloaded unless a copy is already cached.
    static func file(for url: String, checksum: String?, transport: RemoteTransport) throws(CKError) -> URL {
        let name =
            checksum.map { $0.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "+", with: "-") }
            ?? UUID().uuidString
        let file = directory.appendingPathComponent(name)
        if checksum != nil, FileManager.default.fileExists(atPath: file.path) { return file }
        let bytes = try transport.download(url, what: "asset download URL")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            // Written beside the cache file and moved into place, so a reader never sees part
            // of a file.
            let partial = directory.appendingPathComponent(".\(name).\(UUID().uuidString)")
            try Data(bytes).write(to: partial)
            guard rename(partial.path, file.path) == 0 else {
                try? FileManager.default.removeItem(at: partial)
                throw CocoaError(.fileWriteUnknown)
            }
        } catch {
            throw RemoteFailure.error(
                .internalError, "the asset cache at \(directory.path) cannot be written: \(error)")
        }
        return file
    }
}
