import Foundation
import Stratus

/// The asset cache of this database's server (decision 0022).
extension RemoteDatabaseService {
    /// Runs `body`, which reads the records of one answer, so that the asset files it hands out
    /// stay in use until it returns, and the cache is trimmed once after it.
    func readingAssets<T>(_ body: () throws -> T) rethrows -> T {
        try AssetFileAnswer.reading(RemoteAssetCache(transport.server.assetCache).files, body)
    }
}
