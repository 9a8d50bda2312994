import Crypto

/// The server's HMAC key (decision 0013.2, `06 08`): 32 random bytes, made at first use and
/// shared by every stratusd on the store, for asset URLs and receipts.
extension AuthStore {
    /// The server's HMAC key, made now if the store has none. Two processes making it at once
    /// both end with the same key: the write transaction that loses the race runs again and
    /// finds the winner's.
    package func hmacKey() throws -> SymmetricKey {
        if let stored = try data.read({ try $0.get(Self.hmacKeyKey) }), stored.count == 32 {
            return SymmetricKey(data: stored)
        }
        let bytes = try data.write { writer in
            if let stored = try writer.get(Self.hmacKeyKey), stored.count == 32 { return stored }
            let made = Secret.bytes(32)
            try writer.set(Self.hmacKeyKey, made)
            return made
        }
        return SymmetricKey(data: bytes)
    }

    /// Replaces the server's HMAC key with a new random one: every URL and receipt signed with
    /// the old key stops being valid (once each process reads the key again).
    package func rotateHMACKey() throws {
        let made = Secret.bytes(32)
        try data.write { writer in try writer.set(Self.hmacKeyKey, made) }
    }
}
