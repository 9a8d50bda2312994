import Foundation
import StratusBackend

/// Asset contents live in the store under `DatabaseKeys.asset(contentID)`, outside record
/// rows; fetched assets are copied to a local cache file (decision 0002).
extension Engine {
    /// Where fetched assets are materialized.
    var assetCacheDirectory: URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("stratus-assets", isDirectory: true)
            .appendingPathComponent(storeID.map { String(format: "%02x", $0) }.joined(), isDirectory: true)
    }

    /// Reads the file of a pending asset, before the write transaction.
    static func loadAssetFile(_ url: URL, field: String) throws -> [UInt8] {
        do {
            return Array(try Data(contentsOf: url))
        } catch {
            throw CKError.make(.assetFileNotFound, "asset file for field '\(field)' cannot be read at \(url.path)")
        }
    }

    /// A fetched asset whose content is copied to a local file (once per content ID).
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
        let file = assetCacheDirectory.appendingPathComponent(asset.contentID)
        result.pendingFile = file
        if !FileManager.default.fileExists(atPath: file.path) {
            do {
                guard let content = try txn.get(keys.asset(asset.contentID)) else {
                    result.pendingFile = nil
                    return result
                }
                try FileManager.default.createDirectory(at: assetCacheDirectory, withIntermediateDirectories: true)
                try Data(content).write(to: file, options: .atomic)
            } catch {
                result.pendingFile = nil
            }
        }
        return result
    }
}

extension DatabaseContext {
    /// Removes the contents of every asset among `fields`.
    func removeAssets(of fields: FieldTable, _ txn: any BackendWriteTransaction) throws {
        for value in fields.values {
            for asset in value.assets where !asset.contentID.isEmpty {
                try txn.clear(keys.asset(asset.contentID))
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
