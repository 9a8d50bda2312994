import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Eviction: least recently handed out first, never a file in use.
extension AssetFileCache {
    /// One cached file as the trim sees it.
    struct Entry {
        var name: String
        var size: Int64
        /// When it was last handed out (its modification time), in seconds since 1970.
        var used: Double
    }

    /// What one trim did.
    package struct Trimmed: Equatable {
        /// The bytes of the cached files after it.
        package var bytes: Int64
        /// The files it removed.
        package var evicted: Int
    }

    /// How old a partial file (`.name.UUID`) must be to count as a crashed writer's leftover.
    static let abandonedPartialAge: Double = 3600

    /// Evicts the least recently used files that are not in use until the cache holds at most
    /// the policy's `maximumBytes`, under the directory's exclusive lock. Files pinned by this
    /// process or handed out within the policy's `inUseInterval` stay, so the cache may stay
    /// above the limit; partial files of crashed writers go.
    @discardableResult
    package func trim(now: Date = Date()) -> Trimmed {
        let trimmed = try? withLock(LOCK_EX) { trimLocked(now: now.timeIntervalSince1970) }
        state.trimmed(to: trimmed?.bytes, now: now.timeIntervalSince1970)
        return trimmed ?? Trimmed(bytes: 0, evicted: 0)
    }

    /// Trims after `bytes` were added, unless this process's count of the directory, made by a
    /// trim in the last ``AssetDirectoryState/countLifetime`` seconds and kept since, shows it
    /// still at or under the limit: listing a directory of thousands of files costs more than
    /// copying an asset from the store (decision 0022, "Embedded too").
    func trim(afterAdding bytes: Int64, now: Date = Date()) {
        guard bytes > 0 else { return }
        guard !state.staysUnder(policy.maximumBytes, adding: bytes, now: now.timeIntervalSince1970) else { return }
        trim(now: now)
    }

    private func trimLocked(now: Double) -> Trimmed {
        var entries = scan(now: now)
        var total = entries.reduce(Int64(0)) { $0 + $1.size }
        let limit = max(1, policy.maximumBytes)
        guard total > limit else { return Trimmed(bytes: total, evicted: 0) }
        let cutoff = now - policy.inUseSeconds
        let pinned = state.pinned()
        entries.sort { $0.used < $1.used }
        let base = directory.path + "/"
        var evicted = 0
        for entry in entries where entry.used <= cutoff && !pinned.contains(entry.name) {
            guard total > limit else { break }
            guard unlink(base + entry.name) == 0 else { continue }
            total -= entry.size
            evicted += 1
        }
        return Trimmed(bytes: total, evicted: evicted)
    }

    /// The cached files (regular files not starting with `.`); abandoned partial files are
    /// removed on the way.
    func scan(now: Double) -> [Entry] {
        let base = directory.path + "/"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var entries: [Entry] = []
        for name in names where name != ".lock" {
            let path = base + name
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            #if canImport(Darwin)
                let modified = info.st_mtimespec
            #else
                let modified = info.st_mtim
            #endif
            let used = Double(modified.tv_sec) + Double(modified.tv_nsec) * 1e-9
            if name.hasPrefix(".") {
                if now - used > Self.abandonedPartialAge { unlink(path) }
                continue
            }
            entries.append(Entry(name: name, size: Int64(info.st_size), used: used))
        }
        return entries
    }
}
