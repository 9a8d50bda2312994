import Foundation

/// How large a cache of asset files grows and how long a file handed out stays in use
/// (decision 0022): the policy a remote container's downloaded assets and an embedded engine's
/// materialized ones share (`AssetFileCache`).
///
/// A cache is trimmed to ``maximumBytes`` by evicting the least recently handed-out files, but
/// never one handed out within the last ``inUseInterval`` (by any process sharing the
/// directory) nor one an answer of this process is still reading; so it may stay above the
/// limit while more than that is in use.
///
/// An embedded container takes one in
/// ``CKContainer/init(identifier:backend:environment:logger:assetCache:)``; a remote
/// container's is `StratusRemote`'s `RemoteAssetCachePolicy`, which adds the directory.
public struct AssetCachePolicy: Sendable, Hashable {
    /// 512 MiB.
    public static let defaultMaximumBytes: Int64 = 512 << 20
    /// Five minutes.
    public static let defaultInUseInterval: Duration = .seconds(300)

    /// The size the cache is trimmed to after a file is added, in bytes (at least 1).
    public var maximumBytes: Int64
    /// How long after a file was last handed out it still counts as in use (at least zero).
    public var inUseInterval: Duration

    /// A cache of at most `maximumBytes` (clamped to at least 1) whose files count as in use
    /// for `inUseInterval` (clamped to at least zero) after they are handed out.
    public init(
        maximumBytes: Int64 = AssetCachePolicy.defaultMaximumBytes,
        inUseInterval: Duration = AssetCachePolicy.defaultInUseInterval
    ) {
        self.maximumBytes = max(1, maximumBytes)
        self.inUseInterval = max(.zero, inUseInterval)
    }

    /// ``inUseInterval`` in seconds.
    var inUseSeconds: Double {
        let parts = inUseInterval.components
        return max(0, Double(parts.seconds) + Double(parts.attoseconds) * 1e-18)
    }
}
