import Crypto
import Foundation
package import Stratus
import StratusBackend

/// Courier tokens (decision 0014.4): 32 random bytes in base64url, stored as their SHA-256 only
/// under `06 09` and indexed by user under `06 0A`; at most 20 per user (the least recently used
/// goes first); unused for 30 days → refused and deleted.
extension AuthStore {
    static let courierPrefix: [UInt8] = [ServerData.tag, 0x09]
    /// The most courier tokens one user keeps.
    package static let maximumCouriersPerUser = 20
    /// A token unused for this long is deleted.
    package static let courierIdleLimit: TimeInterval = 30 * 86_400

    /// Makes a courier token for `user` and returns it: the only time it is seen in clear.
    /// `cursor` is where it starts: just before the oldest entry the log still keeps, so a new
    /// token is never told that entries dropped before it existed were lost.
    package func createCourier(
        container: String, environment: Namespace.Environment, userRecordName: String, apnsEnvironment: String,
        cursor: Int64 = 0, now: Date = Date()
    ) throws -> (token: String, entry: CourierEntry) {
        let token = Secret.base64URL(Secret.bytes(32))
        let entry = CourierEntry(
            id: Secret.hex(SessionToken.digest(of: token).prefix(8)), container: container, environment: environment,
            userRecordName: userRecordName, apnsEnvironment: apnsEnvironment, created: now, cursor: cursor,
            lastPoll: now)
        let digest = SessionToken.digest(of: token)
        try ensureIndexes()
        try data.write { writer in
            let mine = try Self.couriers(of: entry.namespace, writer.get, writer.scan)
            for (digest, _) in mine.sorted(by: { $0.1.lastPoll < $1.1.lastPoll })
                .prefix(max(0, mine.count - Self.maximumCouriersPerUser + 1))
            {
                try writer.clear(Self.courierPrefix + digest)
                try writer.clear(Self.courierIndexKey(entry.namespace, digest: digest))
            }
            try writer.set(Self.courierPrefix + digest, Self.encode(entry))
            try writer.set(Self.courierIndexKey(entry.namespace, digest: digest), [])
        }
        return (token, entry)
    }

    /// The courier `token` presents, or `nil` when it is unknown, idle too long (then deleted),
    /// or its user, container or environment is disabled or gone — as a session is refused
    /// (``session(presented:now:)``): a courier reads the user's notifications, which carry
    /// record names and fields. Looked up by the token's SHA-256, compared with the stored hash
    /// in constant time.
    package func courier(presented token: String, now: Date = Date()) throws -> CourierEntry? {
        guard SessionToken.isWellFormed(token) else { return nil }
        let digest = SHA256.hash(data: Data(token.utf8))
        guard
            let (found, entry) = try data.read({ reader -> ((key: [UInt8], value: [UInt8]), CourierEntry)? in
                guard
                    let found = try Self.value(
                        under: Self.courierPrefix, digest: digest, in: { try reader.scan($0, limit: $1) })
                else { return nil }
                let entry = try Self.decode(CourierEntry.self)(found.value)
                guard try Self.userIsEnabled(entry.container, entry.environment, entry.userRecordName, reader.get)
                else { return nil }
                return (found, entry)
            })
        else { return nil }
        guard now.timeIntervalSince(entry.lastPoll) < Self.courierIdleLimit else {
            try data.write { writer in
                try writer.clear(found.key)
                try writer.clear(Self.courierIndexKey(entry.namespace, digest: Array(digest)))
            }
            return nil
        }
        return entry
    }

    /// Moves the courier's cursor forward to `position` (never back) and notes the use; writes
    /// nothing when neither changes. Returns the entry as stored.
    package func acknowledge(courier token: String, through position: Int64, now: Date = Date()) throws -> CourierEntry?
    {
        let key = Self.courierPrefix + SessionToken.digest(of: token)
        return try data.write { writer -> CourierEntry? in
            guard let bytes = try writer.get(key) else { return nil }
            var entry = try Self.decode(CourierEntry.self)(bytes)
            let moves = position > entry.cursor
            let stale = now.timeIntervalSince(entry.lastPoll) > 86_400
            guard moves || stale else { return entry }
            entry.cursor = max(entry.cursor, position)
            entry.lastPoll = now
            try writer.set(key, Self.encode(entry))
            return entry
        }
    }

    /// The lowest cursor among the user's courier tokens: what every one of them acknowledged.
    package func lowestCursor(of namespace: Namespace) throws -> Int64? {
        try ensureIndexes()
        return try data.read { reader in
            try Self.couriers(of: namespace, reader.get, reader.scan).map(\.1.cursor).min()
        }
    }

    /// The courier tokens of `namespace`'s user, by the SHA-256 of each, found through their
    /// index (at most ``maximumCouriersPerUser`` entries): never a scan of every user's.
    static func couriers(
        of namespace: Namespace, _ get: ([UInt8]) throws -> [UInt8]?,
        _ scan: (KeyRange, Int, Bool) throws -> [KeyValuePair]
    ) throws -> [([UInt8], CourierEntry)] {
        let range = courierIndexRange(namespace)
        return try scan(range, Int.max, false).compactMap { pair in
            let digest = Array(pair.key.dropFirst(range.lowerBound.count))
            return try get(courierPrefix + digest).map { (digest, try decode(CourierEntry.self)($0)) }
        }
    }
}
