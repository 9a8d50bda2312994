import Foundation
import StratusBackend

/// Asset contents live in the store outside record rows, in parts (``AssetParts``, decisions
/// 0002 and 0015); fetched assets are copied to files of a bounded local cache (decision 0022).
extension Engine {
    /// Where fetched assets are materialized: `$TMPDIR/stratus-assets/<store ID>`, one
    /// directory per store, shared by every engine and process on it.
    static func assetCacheDirectory(storeID: [UInt8]) -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("stratus-assets", isDirectory: true)
            .appendingPathComponent(storeID.map { String(format: "%02x", $0) }.joined(), isDirectory: true)
    }

    /// Runs `body`, a transaction that may materialize assets, as one answer of the asset
    /// cache: the files it hands out stay in use until it returns, and the cache is trimmed
    /// once after it if its additions may have taken it over its limit (``AssetFileAnswer``).
    func readingAssets<T>(_ body: () throws -> T) rethrows -> T {
        try AssetFileAnswer.reading(assetCache, body)
    }

    /// Reads the file of a pending asset, before the write transaction.
    static func loadAssetFile(_ url: URL, field: String) throws -> [UInt8] {
        do {
            return Array(try Data(contentsOf: url))
        } catch {
            throw CKError.make(.assetFileNotFound, "asset file for field '\(field)' cannot be read at \(url.path)")
        }
    }

    /// A fetched asset whose content is copied to a file of the asset cache (once per content
    /// ID while it stays cached), handed out: in use until the transaction reading it ends and
    /// for the cache policy's `inUseInterval` after (decision 0022).
    ///
    /// When the content cannot be copied — the store lacks it, or the cache directory cannot
    /// be written — the asset has no file: its `fileURL` is `nil`, which is how CloudKit marks
    /// an asset whose content is not available locally, rather than a URL of a file that does
    /// not exist.
    ///
    /// The content is read through `txn`, the transaction the record is read in: a
    /// transaction of its own would not see content written by the enclosing write, could not
    /// run inside a body on a single-connection store, and would wait for a free reader
    /// connection while holding one (a deadlock once every reader is taken).
    func materialize(_ asset: AssetValue, keys: DatabaseKeys, _ txn: any BackendReadTransaction) -> AssetValue {
        var result = asset
        let name = asset.contentID
        result.pendingFile = assetCache.file(name)
        guard !assetCache.handOutCached(name) else { return result }
        do {
            // Written beside the cache file and moved into place, so a reader never sees a
            // file with some of the parts.
            try assetCache.add(name) { partial in
                guard try AssetParts(keys: keys).copy(name, to: partial, txn) else { throw MissingContent() }
            }
        } catch {
            result.pendingFile = nil
        }
        return result
    }

    /// The store lacks a fetched asset's content.
    private struct MissingContent: Error {}
}

extension DatabaseContext {
    /// Removes the contents of every asset among `fields`.
    func removeAssets(of fields: FieldTable, _ txn: any BackendWriteTransaction) throws {
        for value in fields.values {
            for asset in value.assets where !asset.contentID.isEmpty {
                try assetParts.remove(asset.contentID, txn)
            }
        }
    }
}

extension FieldValue {
    /// The assets inside this value.
    var assets: [AssetValue] {
        switch self {
        case .asset(let a): return [a]
        case .list(let items): return items.flatMap(\.assets)
        default: return []
        }
    }
}
