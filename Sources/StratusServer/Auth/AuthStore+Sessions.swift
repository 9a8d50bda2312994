import Crypto
import Foundation
package import Stratus
import StratusBackend

/// Sessions (`ckWebAuthToken`, decision 0013.4): 32 random bytes in base64url, bound to a
/// container × environment × user, stored under `06 03` as their SHA-256 only and indexed by
/// expiry under `06 0B`, with an absolute expiry and no renewal. A revoked session is deleted.
extension AuthStore {
    /// How long a session lives unless told otherwise: 30 days.
    package static let defaultSessionTTL: TimeInterval = 30 * 86_400
    /// The longest a session may live: 365 days.
    package static let maxSessionTTL: TimeInterval = 365 * 86_400

    /// Makes a session for the user `externalUserID` names (made now at first sight) and
    /// returns it: the only time the token is seen in clear.
    ///
    /// - Throws: ``AuthError`` when the container does not exist, is disabled or lacks the
    ///   environment, the user is disabled, the external ID is malformed, or `ttl` is not
    ///   within (0, 365 days].
    package func createSession(
        container: String, environment: Namespace.Environment, externalUserID: String,
        ttl: TimeInterval = AuthStore.defaultSessionTTL, now: Date = Date()
    ) throws -> (token: String, entry: SessionEntry) {
        guard ttl > 0, ttl <= Self.maxSessionTTL else {
            throw AuthError("a session lives more than 0 seconds and at most 365 days")
        }
        try UserEntry.validate(externalID: externalUserID)
        let token = Secret.base64URL(Secret.bytes(32))
        let digest = SessionToken.digest(of: token)
        try ensureIndexes()
        let entry = try data.write { writer -> Result<SessionEntry, AuthError> in
            if let refusal = try Self.refusal(container: container, environment: environment, get: writer.get) {
                return .failure(refusal)
            }
            let user = try Self.user(container: container, externalID: externalUserID, now: now, writer: writer)
            guard user.disabled == nil else { return .failure(AuthError("user \(user.userRecordName) is disabled")) }
            let entry = SessionEntry(
                id: SessionToken.id(of: token), container: container, environment: environment,
                userRecordName: user.userRecordName, created: now, expires: now.addingTimeInterval(ttl))
            try writer.set(Self.sessionPrefix + digest, Self.encode(entry))
            try writer.set(Self.sessionExpiryKey(entry.expires, digest: digest), [])
            return .success(entry)
        }.get()
        return (token, entry)
    }

    /// The live session `token` presents, or `nil` when it is unknown, revoked, expired at
    /// `now`, or its user or container is disabled. Looked up by the token's SHA-256, then
    /// compared with the stored hash in constant time.
    package func session(presented token: String, now: Date = Date()) throws -> SessionEntry? {
        guard SessionToken.isWellFormed(token) else { return nil }
        return try data.read { reader -> SessionEntry? in
            guard
                let found = try Self.value(
                    under: Self.sessionPrefix, digest: SHA256.hash(data: Data(token.utf8)),
                    in: { try reader.scan($0, limit: $1) })
            else { return nil }
            let entry = try Self.decode(SessionEntry.self)(found.value)
            guard now < entry.expires,
                try Self.userIsEnabled(entry.container, entry.environment, entry.userRecordName, reader.get)
            else { return nil }
            return entry
        }
    }

    /// Whether `container` × `environment` takes credentials and its user `userRecordName`
    /// exists and is not disabled: what a session and a courier token both need.
    static func userIsEnabled(
        _ container: String, _ environment: Namespace.Environment, _ userRecordName: String,
        _ get: ([UInt8]) throws -> [UInt8]?
    ) throws -> Bool {
        guard try refusal(container: container, environment: environment, get: get) == nil,
            let user = try get(key(userPrefix, container, userRecordName))
        else { return false }
        return try decode(UserEntry.self)(user).disabled == nil
    }

    /// Revokes the session `token` presents; `false` when there was none.
    @discardableResult
    package func revokeSession(presented token: String) throws -> Bool {
        guard SessionToken.isWellFormed(token) else { return false }
        return try data.write { writer in
            guard
                let found = try Self.value(
                    under: Self.sessionPrefix, digest: SHA256.hash(data: Data(token.utf8)),
                    in: { try writer.scan($0, limit: $1) })
            else { return false }
            try Self.clearSession(found.key, found.value, writer)
            return true
        }
    }

    /// Revokes the session of `container` whose ID is `id`.
    ///
    /// - Throws: ``AuthError`` when `container` has no session with that ID.
    package func revokeSession(container: String, id: String) throws {
        try data.write { writer -> Result<Void, AuthError> in
            let all = try writer.scan(KeyRange(prefix: Self.sessionPrefix), limit: Int.max)
            guard
                let pair = try all.first(where: {
                    let entry = try Self.decode(SessionEntry.self)($0.value)
                    return entry.container == container && entry.id == id
                })
            else { return .failure(AuthError("container '\(container)' has no session with ID \(id)")) }
            try Self.clearSession(pair.key, pair.value, writer)
            return .success(())
        }.get()
    }

    /// Deletes every session expired at `now` and answers how many there were, so expired
    /// sessions do not pile up in the store (for a periodic task). Finds them through the
    /// expiry index, ``purgeBatch`` to a transaction: the work follows the sessions that
    /// expired, not all there are.
    @discardableResult
    package func purgeExpiredSessions(now: Date = Date()) throws -> Int {
        try ensureIndexes()
        var purged = 0
        var range = Self.sessionsExpired(at: now)
        while true {
            // Counted inside the write, whose body runs again when the transaction is retried.
            let (scanned, cleared) = try data.write { writer in
                let entries = try writer.scan(range, limit: Self.purgeBatch)
                var cleared = 0
                for pair in entries {
                    let key = Self.sessionPrefix + pair.key.suffix(32)
                    guard let value = try writer.get(key) else {
                        try writer.clear(pair.key)  // its session was deleted
                        continue
                    }
                    let entry = try Self.decode(SessionEntry.self)(value)
                    if entry.expires <= now {
                        try Self.clearSession(key, value, writer)
                        cleared += 1
                    }
                    // Otherwise it expires later in `now`'s millisecond: both stay.
                }
                return (entries, cleared)
            }
            purged += cleared
            guard scanned.count == Self.purgeBatch, let last = scanned.last else { return purged }
            range = KeyRange(from: last.key + [0], to: range.upperBound)
        }
    }

    /// The most expired sessions one transaction of ``purgeExpiredSessions(now:)`` deletes.
    static let purgeBatch = 1_000

    /// Deletes the session stored at `key` (its value `value`) and its expiry index entry.
    static func clearSession(_ key: [UInt8], _ value: [UInt8], _ writer: ServerData.Writer) throws {
        try writer.clear(key)
        let entry = try decode(SessionEntry.self)(value)
        try writer.clear(sessionExpiryKey(entry.expires, digest: Array(key.dropFirst(sessionPrefix.count))))
    }

    /// The sessions of `container`, expired ones included, by ID.
    package func sessions(container: String) throws -> [SessionEntry] {
        try data.read { reader in
            try reader.scan(KeyRange(prefix: Self.sessionPrefix), limit: Int.max)
                .map { try Self.decode(SessionEntry.self)($0.value) }
                .filter { $0.container == container }
                .sorted { $0.id < $1.id }
        }
    }
}

/// A session's record; the token itself is never stored.
package struct SessionEntry: Codable, Hashable, Sendable {
    /// A public ID: the first 16 hex digits of the token's SHA-256.
    package var id: String
    /// The container the session is valid in.
    package var container: String
    /// The environment the session is valid in.
    package var environment: Namespace.Environment
    /// The user it signs in.
    package var userRecordName: String
    /// When it was made.
    package var created: Date
    /// When it stops being valid; there is no renewal.
    package var expires: Date
}

/// Session tokens: 32 random bytes in base64url without padding, 43 characters.
enum SessionToken {
    static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count == 43
            && token.utf8.allSatisfy {
                (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 45 || $0 == 95
            }
    }

    static func digest(of token: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(token.utf8)))
    }

    static func id(of token: String) -> String {
        Secret.hex(digest(of: token).prefix(8))
    }
}
