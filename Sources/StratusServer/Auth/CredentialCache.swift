import Foundation
internal import Stratus
import Synchronization

/// A per-process cache of credential look-ups (decision 0013.8). A credential found is kept for
/// `lifetime`, so a revocation takes effect within that time on every process; nothing that was
/// not found is kept, so a stream of random tokens cannot fill memory, and past `capacity`
/// entries the cache empties itself. Keys are hashes and names, never a secret in clear.
final class CredentialCache: Sendable {
    /// What was looked up.
    enum Key: Hashable, Sendable {
        case container(String)
        case apiToken(SHA256Bytes)
        case session(SHA256Bytes)
        case serverKey(container: String, environment: Namespace.Environment, id: String)
    }

    /// The SHA-256 of a presented secret.
    typealias SHA256Bytes = [UInt8]

    let lifetime: TimeInterval
    let capacity: Int
    private let entries = Mutex<[Key: (value: any Sendable, expires: Date)]>([:])

    /// A cache keeping what it finds for `lifetime` (0: nothing is kept).
    init(lifetime: TimeInterval, capacity: Int = 100_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// What `key` names: kept from a look-up less than `lifetime` before `now`, or fetched.
    func value<T: Sendable>(_ key: Key, now: Date, fetch: () throws -> T?) rethrows -> T? {
        if lifetime > 0, let kept = entries.withLock({ $0[key] }), now < kept.expires, let value = kept.value as? T {
            return value
        }
        guard let value = try fetch() else { return nil }
        if lifetime > 0 {
            entries.withLock { entries in
                if entries.count >= capacity { entries.removeAll() }
                entries[key] = (value, now.addingTimeInterval(lifetime))
            }
        }
        return value
    }

    /// Drops what is kept for `key` (a session revoked through this process).
    func forget(_ key: Key) {
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }
}
