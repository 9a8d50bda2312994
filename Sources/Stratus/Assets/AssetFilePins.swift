import Foundation
import Synchronization

/// The files of one asset cache directory that answers of this process are reading
/// (``AssetFileAnswer``), counted, so that a trim — by any cache of the process on the same
/// directory — never evicts them meanwhile.
package final class AssetFilePins: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    /// The pins of `directory`, one object per directory in the process.
    package static func of(_ directory: URL) -> AssetFilePins {
        let key = directory.standardizedFileURL.path
        return registry.withLock { registry in
            if let pins = registry[key] { return pins }
            let pins = AssetFilePins()
            registry[key] = pins
            return pins
        }
    }

    private static let registry = Mutex<[String: AssetFilePins]>([:])

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
    func names() -> Set<String> {
        counts.withLock { Set($0.keys) }
    }
}
