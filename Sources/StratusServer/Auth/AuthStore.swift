import Crypto
import Foundation
package import Stratus
import StratusBackend

/// Containers and credentials, kept in the served store under the server's tag `0x06`
/// (decision 0013.2). Secrets are stored only as their SHA-256 and shown once, when made.
///
/// | Key | Value (JSON) |
/// |---|---|
/// | `06 01 (container)` | ``ContainerEntry`` |
/// | `06 02 (SHA-256(API token))` | ``APITokenEntry`` |
/// | `06 03 (SHA-256(session))` | ``SessionEntry`` |
/// | `06 04 (container, environment, key ID)` | ``ServerKeyEntry`` |
/// | `06 05 (container, external ID)` / `06 06 (container, user record name)` | ``UserEntry`` |
/// | `06 07 (minute, key ID, r)` | the replay guard: empty |
/// | `06 08` | the server's HMAC key: 32 bytes |
/// | `06 09 (SHA-256(courier token))` | ``CourierEntry`` |
/// | `06 0A`, `06 0B`, `06 0C` | indexes of couriers and sessions (`AuthStore+Indexes.swift`) |
///
/// Several components are joined with `0x00`, which no container name or environment holds.
package struct AuthStore: Sendable {
    let data: ServerData
    let indexes = AuthIndexState()

    /// The auth data of the store `engine` serves.
    package init(engine: Engine) {
        data = engine.serverData
    }

    static let containerPrefix: [UInt8] = [ServerData.tag, 0x01]
    static let apiTokenPrefix: [UInt8] = [ServerData.tag, 0x02]

    /// Creates `container` with `environments` enabled, or enables them on an existing one.
    ///
    /// - Throws: ``AuthError`` for a name CloudKit would refuse.
    @discardableResult
    package func createContainer(_ container: String, environments: Set<Namespace.Environment>, now: Date = Date())
        throws -> ContainerEntry
    {
        try ContainerEntry.validate(name: container)
        return try data.write { writer in
            let key = Self.containerPrefix + Array(container.utf8)
            var entry =
                try writer.get(key).map(Self.decode(ContainerEntry.self))
                ?? ContainerEntry(name: container, environments: [], created: now)
            entry.environments.formUnion(environments)
            entry.disabled = nil
            try writer.set(key, Self.encode(entry))
            return entry
        }
    }

    /// Every container, by name.
    package func containers() throws -> [ContainerEntry] {
        try data.read { reader in
            try reader.scan(KeyRange(prefix: Self.containerPrefix), limit: Int.max).map {
                try Self.decode(ContainerEntry.self)($0.value)
            }
        }
    }

    /// Makes an API token for `container` × `environment` and returns it: the only time it
    /// is seen in clear.
    ///
    /// - Throws: ``AuthError`` when the container does not exist or the environment is not
    ///   enabled on it.
    package func createAPIToken(
        container: String, environment: Namespace.Environment, label: String, now: Date = Date()
    ) throws -> (token: String, entry: APITokenEntry) {
        let token = APIToken.random()
        let entry = APITokenEntry(
            id: APIToken.id(of: token), container: container, environment: environment, label: label, created: now,
            revoked: nil)
        // A refusal is the write's result, not an error thrown inside it (the engine would
        // report that as an internal failure).
        try data.write { writer -> Result<Void, AuthError> in
            if let refusal = try Self.refusal(container: container, environment: environment, get: writer.get) {
                return .failure(refusal)
            }
            try writer.set(Self.apiTokenPrefix + APIToken.digest(of: token), Self.encode(entry))
            return .success(())
        }.get()
        return (token, entry)
    }

    /// The API tokens of `container`, revoked ones included, by ID.
    package func apiTokens(container: String) throws -> [APITokenEntry] {
        try data.read { reader in
            try reader.scan(KeyRange(prefix: Self.apiTokenPrefix), limit: Int.max)
                .map { try Self.decode(APITokenEntry.self)($0.value) }
                .filter { $0.container == container }
                .sorted { $0.id < $1.id }
        }
    }

    /// Revokes the token of `container` whose ID is `id`; revoking twice changes nothing.
    ///
    /// - Throws: ``AuthError`` when `container` has no token with that ID.
    package func revokeAPIToken(container: String, id: String, now: Date = Date()) throws {
        let found: Bool = try data.write { writer in
            let all = try writer.scan(KeyRange(prefix: Self.apiTokenPrefix), limit: Int.max)
            guard
                let (key, entry) = try all.lazy.map({ ($0.key, try Self.decode(APITokenEntry.self)($0.value)) })
                    .first(where: { $0.1.container == container && $0.1.id == id })
            else { return false }
            guard entry.revoked == nil else { return true }
            var revoked = entry
            revoked.revoked = now
            try writer.set(key, Self.encode(revoked))
            return true
        }
        guard found else { throw AuthError("container '\(container)' has no API token with ID \(id)") }
    }

    /// The live token entry `token` presents, or `nil` when it is unknown or revoked. Looked
    /// up by the token's SHA-256, then compared with the stored hash in constant time.
    package func apiToken(presented token: String) throws -> APITokenEntry? {
        guard APIToken.isWellFormed(token) else { return nil }
        let entry = try data.read { reader in
            try Self.value(
                under: Self.apiTokenPrefix, digest: SHA256.hash(data: Data(token.utf8)),
                in: { try reader.scan($0, limit: $1) }
            )
            .map { try Self.decode(APITokenEntry.self)($0.value) }
        }
        return entry?.revoked == nil ? entry : nil
    }

    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        // Seconds since 2001, as `Date` keeps them: exact (since 1970 can lose the last bit).
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.timeIntervalSinceReferenceDate)
        }
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(value))
    }

    static func decode<T: Decodable>(_ type: T.Type) -> ([UInt8]) throws -> T {
        { bytes in
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .custom { decoder in
                Date(timeIntervalSinceReferenceDate: try decoder.singleValueContainer().decode(Double.self))
            }
            do {
                return try decoder.decode(T.self, from: Data(bytes))
            } catch {
                throw AuthError("damaged auth data (\(T.self)): \(error)")
            }
        }
    }
}

/// A container stratusd serves.
package struct ContainerEntry: Codable, Hashable, Sendable {
    /// Its identifier, such as `iCloud.com.example.app`.
    package var name: String
    /// The environments with data of their own.
    package var environments: Set<Namespace.Environment>
    /// When it was created.
    package var created: Date
    /// When it was disabled, if it is: every credential of a disabled container is refused.
    package var disabled: Date?

    /// Refuses a name that is empty, longer than 255 bytes, or has characters outside
    /// letters, digits, `.`, `-` and `_`.
    static func validate(name: String) throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
        guard !name.isEmpty, name.utf8.count <= 255, name.allSatisfy(allowed.contains) else {
            throw AuthError(
                "'\(name)' is not a container identifier: use 1 to 255 letters, digits, '.', '-' or '_' "
                    + "(such as iCloud.com.example.app)")
        }
    }
}

/// An API token's record; the token itself is never stored.
package struct APITokenEntry: Codable, Hashable, Sendable {
    /// A public ID: the first 16 hex digits of the token's SHA-256.
    package var id: String
    package var container: String
    package var environment: Namespace.Environment
    package var label: String
    package var created: Date
    package var revoked: Date?
}

/// API tokens: 32 random bytes as 64 lowercase hex digits, as Apple's look (decision 0013.3).
enum APIToken {
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count == 64 && token.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    static func digest(of token: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(token.utf8)))
    }

    static func id(of token: String) -> String {
        digest(of: token).prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}

/// A refused administration or credential request, with what was wrong.
package struct AuthError: Error, CustomStringConvertible, Sendable {
    package var description: String

    init(_ description: String) {
        self.description = description
    }
}
