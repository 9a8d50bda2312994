import Foundation
import Synchronization

/// One answer's records being read (a lookup, a query page, a page of zone changes): the asset
/// files it hands out stay pinned until it has been read, then one trim runs — if it
/// downloaded anything — before they are released, so no file of an answer is evicted by the
/// download of a sibling in the same answer.
final class RemoteAssetAnswer: Sendable {
    /// The answer the current thread or task is reading, if any.
    @TaskLocal static var current: RemoteAssetAnswer?

    let cache: RemoteAssetCache
    private let state = Mutex<(names: [String], downloaded: Bool)>(([], false))

    private init(cache: RemoteAssetCache) {
        self.cache = cache
    }

    /// Runs `body`, which reads one answer's records, as an answer of `cache`.
    static func reading<T>(_ cache: RemoteAssetCache, _ body: () throws -> T) rethrows -> T {
        let answer = RemoteAssetAnswer(cache: cache)
        defer { answer.finish() }
        return try $current.withValue(answer, operation: body)
    }

    /// Notes a file the answer handed out (pinned by the cache), and whether it was downloaded.
    func handedOut(_ name: String, downloaded: Bool) {
        state.withLock {
            $0.names.append(name)
            $0.downloaded = $0.downloaded || downloaded
        }
    }

    /// Trims the cache if the answer downloaded anything, then releases its pins.
    private func finish() {
        let (names, downloaded) = state.withLock { $0 }
        if downloaded { cache.trim() }
        cache.pins.unpin(names)
    }
}
