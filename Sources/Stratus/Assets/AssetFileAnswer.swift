import Foundation
import Synchronization

/// One answer's records being read (a lookup, a query page, a page of zone changes, one
/// transaction of the embedded engine): the asset files it hands out stay pinned until it has
/// been read, then one trim runs — if its additions may have taken the directory over its
/// limit — before they are released, so no file of an answer is evicted by the addition of a
/// sibling in the same answer.
package final class AssetFileAnswer: Sendable {
    /// The answer the current thread or task is reading, if any.
    @TaskLocal static var current: AssetFileAnswer?

    let cache: AssetFileCache
    private let state = Mutex<(names: [String], added: Int64)>(([], 0))

    private init(cache: AssetFileCache) {
        self.cache = cache
    }

    /// Runs `body`, which reads one answer's records, as an answer of `cache`; inside an
    /// answer of the same directory already, `body` is part of that one.
    package static func reading<T>(_ cache: AssetFileCache, _ body: () throws -> T) rethrows -> T {
        if current(of: cache) != nil { return try body() }
        let answer = AssetFileAnswer(cache: cache)
        defer { answer.finish() }
        return try $current.withValue(answer, operation: body)
    }

    /// The answer being read on `cache`'s directory, if any.
    static func current(of cache: AssetFileCache) -> AssetFileAnswer? {
        current.flatMap { $0.cache.directory == cache.directory ? $0 : nil }
    }

    /// Notes a file the answer handed out (pinned by the cache), and the bytes it added to the
    /// directory (zero for a cached file).
    func handedOut(_ name: String, added: Int64) {
        state.withLock {
            $0.names.append(name)
            $0.added += added
        }
    }

    /// Trims the cache if the answer's additions may have taken it over the limit, then
    /// releases its pins.
    private func finish() {
        let (names, added) = state.withLock { $0 }
        cache.trim(afterAdding: added)
        cache.state.unpin(names)
    }
}
