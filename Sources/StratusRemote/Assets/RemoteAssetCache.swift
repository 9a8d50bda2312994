import Foundation
import Stratus

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a remote container's fetched assets are kept (decision 0022): one file per content
/// (by its SHA-256) in the policy's directory, downloaded once, its modification time the
/// last time it was handed out, trimmed to the policy's size by evicting the least recently
/// used files that are not in use.
///
/// Safe between processes sharing the directory: a file is written beside its name and renamed
/// into place (never seen in part); handing one out takes the directory's `.lock` shared and
/// evicting takes it exclusive, so a file is either evicted before it is handed out (and then
/// downloaded again) or handed out with a fresh time, which the eviction sees.
struct RemoteAssetCache: Sendable {
    let policy: RemoteAssetCachePolicy
    /// The files answers of this process are reading, by name: never evicted meanwhile.
    let pins: RemoteAssetPins

    init(_ policy: RemoteAssetCachePolicy) {
        self.policy = policy
        self.pins = RemoteAssetPins.of(policy.directory)
    }

    var directory: URL { policy.directory }

    /// The local file of the content at `url`, downloaded unless a copy is cached, and in use
    /// until the answer being read (``RemoteAssetAnswer``) is, or else until a trim has run.
    func file(for url: String, checksum: String?, transport: RemoteTransport) throws(CKError) -> URL {
        let name = Self.fileName(checksum)
        let file = directory.appendingPathComponent(name)
        let answer = RemoteAssetAnswer.current.flatMap { $0.cache.directory == directory ? $0 : nil }
        if checksum != nil, handOutCached(name, file) {
            answer?.handedOut(name, downloaded: false)
            if answer == nil { pins.unpin([name]) }
            return file
        }
        let bytes = try transport.download(url, what: "asset download URL")
        try store(bytes, as: name, file)
        if let answer {
            answer.handedOut(name, downloaded: true)
        } else {
            trim()
            pins.unpin([name])
        }
        return file
    }

    /// The file name of content with `checksum` (base64 made file-safe), or a new one.
    static func fileName(_ checksum: String?) -> String {
        checksum.map { $0.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "+", with: "-") }
            ?? UUID().uuidString
    }

    /// Marks the cached `file` used now and pins it, when it is there.
    private func handOutCached(_ name: String, _ file: URL) -> Bool {
        (try? withLock(LOCK_SH) { () -> Bool in
            // A file evicted meanwhile is not there to touch: it is downloaded again.
            guard utimes(file.path, nil) == 0 else { return false }
            pins.pin(name)
            return true
        }) ?? false
    }

    /// Writes `bytes` beside `file` and renames it into place, pinned.
    private func store(_ bytes: [UInt8], as name: String, _ file: URL) throws(CKError) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            // Written beside the cache file and moved into place, so a reader never sees part
            // of a file.
            let partial = directory.appendingPathComponent(".\(name).\(UUID().uuidString)")
            try Data(bytes).write(to: partial)
            try withLock(LOCK_SH) {
                guard rename(partial.path, file.path) == 0 else {
                    try? FileManager.default.removeItem(at: partial)
                    throw CocoaError(.fileWriteUnknown)
                }
                pins.pin(name)
            }
        } catch {
            throw RemoteFailure.error(
                .internalError, "the asset cache at \(directory.path) cannot be written: \(error)")
        }
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
