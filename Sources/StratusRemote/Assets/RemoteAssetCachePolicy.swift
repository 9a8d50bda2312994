public import Foundation
import Stratus

/// How a remote container keeps the assets it fetches (decision 0022): one file per content
/// in ``directory``, kept under ``maximumBytes`` by evicting the least recently used files
/// that are not in use — the policy, and the code, of the embedded engine's cache of
/// materialized assets too.
///
/// A fetched `CKAsset`'s `fileURL` names a file of this cache, as CloudKit's names one in its
/// staging area, which the system purges when it needs the space: copy a file the app means to
/// keep. A file counts as *in use*, and is never evicted, while the answer that hands it out is
/// being read, and for ``inUseInterval`` after it was last handed out (by any process sharing
/// the directory). So the cache may hold more than ``maximumBytes`` while more than that is in
/// use; the next download after those files age out trims it back.
///
/// ```swift
/// var server = RemoteServer(url: url, credentials: credentials)
/// server.assetCache.maximumBytes = 64 << 20     // or STRATUS_REMOTE_ASSET_CACHE_BYTES
/// ```
public struct RemoteAssetCachePolicy: Sendable, Hashable {
    /// 512 MiB, as the embedded engine's cache of materialized assets.
    public static let defaultMaximumBytes: Int64 = AssetCachePolicy.defaultMaximumBytes
    /// Five minutes, as the embedded engine's cache of materialized assets.
    public static let defaultInUseInterval: Duration = AssetCachePolicy.defaultInUseInterval
    /// `$TMPDIR/stratus-assets/remote`, shared by every remote container of the user.
    public static var defaultDirectory: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("stratus-assets/remote", isDirectory: true)
    }

    /// The cache's directory. Processes may share it: files are written beside it and renamed
    /// into place, and evictions lock the directory (an `flock` on its `.lock` file).
    public var directory: URL
    /// The size the cache is trimmed to after a download, in bytes (at least 1).
    public var maximumBytes: Int64
    /// How long after a file was last handed out it still counts as in use (at least zero).
    /// Zero keeps only the files of answers being read in this process, so a file stays
    /// valid only until the next download; another process sharing the directory then does
    /// not protect its own files either.
    public var inUseInterval: Duration

    /// A cache in `directory` of at most `maximumBytes`, whose files count as in use for
    /// `inUseInterval` after they are handed out.
    public init(
        directory: URL = RemoteAssetCachePolicy.defaultDirectory,
        maximumBytes: Int64 = RemoteAssetCachePolicy.defaultMaximumBytes,
        inUseInterval: Duration = RemoteAssetCachePolicy.defaultInUseInterval
    ) {
        self.directory = directory
        self.maximumBytes = max(1, maximumBytes)
        self.inUseInterval = max(.zero, inUseInterval)
    }
}
