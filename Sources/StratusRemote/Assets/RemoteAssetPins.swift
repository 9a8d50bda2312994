import Foundation
import Synchronization

/// The files of one asset cache directory that answers of this process are reading
/// (``RemoteAssetAnswer``), counted, so that a trim — of any container of the process on the
/// same directory — never evicts them meanwhile.
final class RemoteAssetPins: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    /// The pins of `directory`, one object per directory in the process.
    static func of(_ directory: URL) -> RemoteAssetPins {
        let key = directory.standardizedFileURL.path
        return registry.withLock { registry in
            if let pins = registry[key] { return pins }
            let pins = RemoteAssetPins()
            registry[key] = pins
            return pins
        }
    }

    private static let registry = Mutex<[String: RemoteAssetPins]>([:])

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
