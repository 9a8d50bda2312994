import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A directory of asset files, one per content, kept to a size by its policy (decision 0022):
/// a remote container's downloaded assets and an embedded engine's materialized ones. Each
/// file's modification time is the last time it was handed out; after a file is added, the
/// least recently used files that are not in use are evicted until the directory holds at most
/// the policy's `maximumBytes`.
///
/// Safe between processes sharing the directory: a file is written beside its name and renamed
/// into place (never seen in part); handing one out takes the directory's `.lock` shared and
/// evicting takes it exclusive, so a file is either evicted before it is handed out (and then
/// added again) or handed out with a fresh time, which the eviction sees.
package struct AssetFileCache: Sendable {
    /// The cache's directory, created when the first file is added.
    package let directory: URL
    package let policy: AssetCachePolicy
    /// The files answers of this process are reading (never evicted meanwhile), and the
    /// directory's bytes as last counted.
    let state: AssetDirectoryState

    /// The cache in `directory`, kept by `policy`.
    package init(directory: URL, policy: AssetCachePolicy) {
        self.directory = directory
        self.policy = policy
        self.state = AssetDirectoryState.of(directory)
    }

    /// The location of the file `name`.
    package func file(_ name: String) -> URL {
        directory.appendingPathComponent(name)
    }

    /// Hands out the cached file `name` — marks it used now, in use until the answer being read
    /// (``AssetFileAnswer``) is — and answers `true`; `false` when it is not there (never cached,
    /// or evicted meanwhile), so the caller adds it.
    package func handOutCached(_ name: String) -> Bool {
        let found =
            (try? withLock(LOCK_SH) { () -> Bool in
                // A file evicted meanwhile is not there to touch: it is added again.
                guard utimes(file(name).path, nil) == 0 else { return false }
                state.pin(name)
                return true
            }) ?? false
        if found { handedOut(name, added: 0) }
        return found
    }

    /// Adds the file `name` — `write` fills a new file at the URL it is given, which is then
    /// renamed into place — and hands it out; without an answer being read the cache is
    /// trimmed at once (when the addition may take it over the limit: ``trim(afterAdding:)``).
    /// Throws what `write` throws, or a `CocoaError` when the directory cannot be written.
    package func add(_ name: String, write: (URL) throws -> Void) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let partial = directory.appendingPathComponent(".\(name).\(UUID().uuidString)")
        defer { unlink(partial.path) }
        try write(partial)
        var info = stat()
        let size = stat(partial.path, &info) == 0 ? Int64(info.st_size) : 0
        try withLock(LOCK_SH) {
            // Replaces a copy another writer put there meanwhile: the content is the same.
            guard rename(partial.path, file(name).path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file(name).path])
            }
            state.pin(name)
        }
        handedOut(name, added: size)
    }

    /// Notes `name`, pinned, as handed out having `added` bytes to the directory: to the
    /// answer being read, which releases it later, or else released now, after a trim.
    private func handedOut(_ name: String, added: Int64) {
        if let answer = AssetFileAnswer.current(of: self) {
            answer.handedOut(name, added: added)
            return
        }
        trim(afterAdding: added)
        state.unpin([name])
    }

    /// Runs `body` holding the directory's `.lock` in `mode` (`LOCK_SH` or `LOCK_EX`).
    func withLock<T>(_ mode: Int32, _ body: () throws -> T) throws -> T {
        let path = directory.appendingPathComponent(".lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission) }
        defer { close(descriptor) }
        while flock(descriptor, mode) != 0 {
            guard errno == EINTR else { throw CocoaError(.fileLocking) }
        }
        return try body()
    }
}
