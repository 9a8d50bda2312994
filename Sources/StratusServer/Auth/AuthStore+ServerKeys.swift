import Crypto
import Foundation
package import Stratus
import StratusBackend

/// Server-to-server keys (decision 0013.5): P-256 public keys of a container × environment,
/// under `06 04 (container, environment, key ID)`. The key ID is 16 random bytes in hex.
extension AuthStore {
    /// Adds the P-256 public key `pem` holds (what `openssl ec -pubout` prints) and returns
    /// its entry, whose ID signed requests name.
    ///
    /// - Throws: ``AuthError`` for a private key, a key on another curve or anything else that
    ///   is not a P-256 public key, and when the container does not exist, is disabled or
    ///   lacks the environment.
    package func addServerKey(
        container: String, environment: Namespace.Environment, pem: String, label: String, now: Date = Date()
    ) throws -> ServerKeyEntry {
        let publicKey = try ServerKeyEntry.publicKey(pem: pem)
        let entry = ServerKeyEntry(
            id: Secret.hex(Secret.bytes(16)), container: container, environment: environment,
            publicKey: publicKey.derRepresentation, label: label, created: now, revoked: nil)
        try data.write { writer -> Result<Void, AuthError> in
            if let refusal = try Self.refusal(container: container, environment: environment, get: writer.get) {
                return .failure(refusal)
            }
            try writer.set(
                Self.key(Self.serverKeyPrefix, container, environment.rawValue, entry.id), Self.encode(entry))
            return .success(())
        }.get()
        return entry
    }

    /// The keys of `container`, revoked ones included, by environment and ID.
    package func serverKeys(container: String) throws -> [ServerKeyEntry] {
        try data.read { reader in
            try reader.scan(Self.range(Self.serverKeyPrefix, within: container), limit: Int.max).map {
                try Self.decode(ServerKeyEntry.self)($0.value)
            }
        }
    }

    /// The live key `id` of `container` × `environment`, or `nil` when there is none or it is
    /// revoked.
    package func serverKey(container: String, environment: Namespace.Environment, id: String) throws
        -> ServerKeyEntry?
    {
        let entry = try data.read { reader in
            try reader.get(Self.key(Self.serverKeyPrefix, container, environment.rawValue, id))
                .map(Self.decode(ServerKeyEntry.self))
        }
        return entry?.revoked == nil ? entry : nil
    }

    /// Revokes the key of `container` whose ID is `id`; revoking twice changes nothing.
    ///
    /// - Throws: ``AuthError`` when `container` has no key with that ID.
    package func revokeServerKey(container: String, id: String, now: Date = Date()) throws {
        try data.write { writer -> Result<Void, AuthError> in
            for environment in Namespace.Environment.allCases {
                let key = Self.key(Self.serverKeyPrefix, container, environment.rawValue, id)
                guard var entry = try writer.get(key).map(Self.decode(ServerKeyEntry.self)) else { continue }
                if entry.revoked == nil { entry.revoked = now }
                try writer.set(key, Self.encode(entry))
                return .success(())
            }
            return .failure(AuthError("container '\(container)' has no server-to-server key with ID \(id)"))
        }.get()
    }
}

/// A server-to-server key's record.
package struct ServerKeyEntry: Codable, Hashable, Sendable {
    /// The key ID requests name in `X-Apple-CloudKit-Request-KeyID`: 32 hex digits.
    package var id: String
    /// The container the key is valid in.
    package var container: String
    /// The environment the key is valid in.
    package var environment: Namespace.Environment
    /// The P-256 public key, DER (SubjectPublicKeyInfo).
    package var publicKey: Data
    /// A note saying what the key is for.
    package var label: String
    /// When it was added.
    package var created: Date
    /// When it was revoked, if it was.
    package var revoked: Date?

    /// The P-256 public key `pem` holds, refusing anything else with a message that says what
    /// it was and never repeats the PEM.
    static func publicKey(pem: String) throws -> P256.Signing.PublicKey {
        if pem.contains("PRIVATE KEY") {
            throw AuthError(
                "this PEM holds a private key; give the public key only "
                    + "(`openssl ec -in key.pem -pubout -out public.pem`) and keep the private key where it is")
        }
        if let key = try? P256.Signing.PublicKey(pemRepresentation: pem) { return key }
        if (try? P384.Signing.PublicKey(pemRepresentation: pem)) != nil {
            throw AuthError("this is a P-384 public key; server-to-server keys are P-256 (prime256v1), as Apple's are")
        }
        if (try? P521.Signing.PublicKey(pemRepresentation: pem)) != nil {
            throw AuthError("this is a P-521 public key; server-to-server keys are P-256 (prime256v1), as Apple's are")
        }
        throw AuthError(
            "this is not a P-256 (prime256v1) public key in PEM; make one with "
                + "`openssl ecparam -name prime256v1 -genkey -noout -out key.pem` "
                + "and `openssl ec -in key.pem -pubout -out public.pem`")
    }
}
