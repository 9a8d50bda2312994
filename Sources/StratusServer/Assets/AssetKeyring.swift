import Crypto
import Synchronization

/// The server's HMAC key (decision 0013.2) as asset tickets use it: read from the store at
/// start and again by ``AssetMaintenance`` each minute, so a rotated key takes effect within a
/// minute, and requests never wait on the store for it.
final class AssetKeyring: Sendable {
    private let key = Mutex<SymmetricKey?>(nil)

    /// The key last read; `nil` before the first read.
    var current: SymmetricKey? { key.withLock { $0 } }

    /// Reads the key from the store (making it if the store has none).
    func refresh(from store: AuthStore) throws {
        let read = try store.hmacKey()
        key.withLock { $0 = read }
    }
}
