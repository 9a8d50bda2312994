import Foundation
import Stratus

/// Where a remote container's fetched assets are kept (decision 0022): one file per content
/// (by its SHA-256) in the policy's directory, downloaded once — an ``AssetFileCache``, the
/// bounded cache the embedded engine's materialized assets use too.
struct RemoteAssetCache: Sendable {
    let files: AssetFileCache

    init(_ policy: RemoteAssetCachePolicy) {
        files = AssetFileCache(
            directory: policy.directory,
            policy: AssetCachePolicy(maximumBytes: policy.maximumBytes, inUseInterval: policy.inUseInterval))
    }

    /// The local file of the content at `url`, downloaded unless a copy is cached, and in use
    /// until the answer being read (``AssetFileAnswer``) is, or else until a trim has run.
    func file(for url: String, checksum: String?, transport: RemoteTransport) throws(CKError) -> URL {
        let name = Self.fileName(checksum)
        if checksum != nil, files.handOutCached(name) { return files.file(name) }
        let bytes = try transport.download(url, what: "asset download URL")
        do {
            try files.add(name) { try Data(bytes).write(to: $0) }
        } catch {
            throw RemoteFailure.error(
                .internalError, "the asset cache at \(files.directory.path) cannot be written: \(error)")
        }
        return files.file(name)
    }

    /// The file name of content with `checksum` (base64 made file-safe), or a new one.
    static func fileName(_ checksum: String?) -> String {
        checksum.map { $0.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "+", with: "-") }
            ?? UUID().uuidString
    }
}
