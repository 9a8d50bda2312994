import Foundation
import Synchronization

/// What this process knows of one asset cache directory, shared by every cache on it: the
/// files answers are reading (``AssetFileAnswer``), counted, so that a trim never evicts them
/// meanwhile; and the bytes the directory held at the last trim plus those added since, so
/// that an addition that leaves it under the limit skips the trim's listing.
package final class AssetDirectoryState: Sendable {
    /// How long a count stays trusted: past it, the next addition lists the directory again,
    /// so files other processes added meanwhile are counted (and trimmed) within that time.
    static let countLifetime: Double = 10

    private let counts = Mutex<[String: Int]>([:])
    private let counted = Mutex<(bytes: Int64, at: Double)?>(nil)

    /// The state of `directory`, one object per directory in the process.
    package static func of(_ directory: URL) -> AssetDirectoryState {
        let key = directory.standardizedFileURL.path
        return registry.withLock { registry in
            if let state = registry[key] { return state }
            let state = AssetDirectoryState()
            registry[key] = state
            return state
        }
    }

    private static let registry = Mutex<[String: AssetDirectoryState]>([:])

    /// Pins `name` once more.
    func pin(_ name: String) {
        counts.withLock { $0[name, default: 0] += 1 }
    }

    /// Removes one pin of each of `names`.
    func unpin(_ names: [String]) {
        counts.withLock { counts in
            for name in names {
                guard let count = counts[name] else { continue }
                counts[name] = count > 1 ? count - 1 : nil
            }
        }
    }

    /// The names pinned now.
    func pinned() -> Set<String> {
        counts.withLock { Set($0.keys) }
    }

    /// Counts `bytes` more added at `now` and answers `true` when the directory stays at or
    /// under `limit` by a recent count; `false` when it may not, or nothing is known: trim.
    func staysUnder(_ limit: Int64, adding bytes: Int64, now: Double) -> Bool {
        counted.withLock { counted in
            guard let last = counted, now - last.at < Self.countLifetime, last.bytes + bytes <= limit else {
                return false
            }
            counted = (last.bytes + bytes, last.at)
            return true
        }
    }

    /// Notes that a trim at `now` left `bytes` in the directory (`nil`: it could not count).
    func trimmed(to bytes: Int64?, now: Double) {
        counted.withLock { $0 = bytes.map { ($0, now) } }
    }
}
