import Foundation
import StratusBackend

/// Asset contents live in the store outside record rows, in parts (``AssetParts``, decisions
/// 0002 and 0015); fetched assets are copied to a local cache file.
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
                try FileManager.default.createDirectory(at: assetCacheDirectory, withIntermediateDirectories: true)
                // Written beside the cache file and moved into place, so a reader never sees
                // a file with some of the parts.
                let partial = assetCacheDirectory.appendingPathComponent(".\(asset.contentID).\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: partial) }
                guard try AssetParts(keys: keys).copy(asset.contentID, to: partial, txn) else {
                    result.pendingFile = nil
                    return result
                }
                try moveIntoPlace(partial, file)
            } catch {
                result.pendingFile = nil
            }
        }
        return result
    }

    /// Moves `partial` to `file` (replacing a copy another reader put there meanwhile: content
    /// never changes under its ID, so both copies are the same bytes).
    private func moveIntoPlace(_ partial: URL, _ file: URL) throws {
        guard rename(partial.path, file.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
    }
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
