import Foundation
internal import Stratus
import StratusBackend
import Synchronization

/// Secondary indexes of the auth data (decision 0013.2), so that no request reads every
/// user's entries: a user's courier tokens by namespace, and sessions by expiry.
///
/// | Key | Value |
/// |---|---|
/// | `06 0A (container, environment, user record name) 00 (SHA-256(courier token))` | empty |
/// | `06 0B (expiry, ms since 1970, 8 bytes big-endian) (SHA-256(session))` | empty |
/// | `06 0C` | the version of these indexes: `1` |
///
/// A store written before the indexes existed gets them built once, in one write, by the first
/// call that needs them in a process (``ensureIndexes()``).
extension AuthStore {
    static let courierIndexPrefix: [UInt8] = [ServerData.tag, 0x0A]
    static let sessionExpiryPrefix: [UInt8] = [ServerData.tag, 0x0B]
    static let indexVersionKey: [UInt8] = [ServerData.tag, 0x0C]
    static let indexVersion: [UInt8] = [1]

    /// Where the index of the user's courier tokens lists the token of SHA-256 `digest`.
    static func courierIndexKey(_ namespace: Namespace, digest: [UInt8]) -> [UInt8] {
        courierIndexRange(namespace).lowerBound + digest
    }

    /// The index entries of the courier tokens of `namespace`'s user.
    static func courierIndexRange(_ namespace: Namespace) -> KeyRange {
        range(courierIndexPrefix, within: namespace.container, namespace.environment.rawValue, namespace.owner)
    }

    /// Where the expiry index lists the session of SHA-256 `digest` that expires at `expires`.
    static func sessionExpiryKey(_ expires: Date, digest: [UInt8]) -> [UInt8] {
        sessionExpiryPrefix + millisecondBytes(of: expires) + digest
    }

    /// The expiry index's entries of sessions that may have expired at `now`: those of `now`'s
    /// millisecond and before (one expiring later in that millisecond has not).
    static func sessionsExpired(at now: Date) -> KeyRange {
        KeyRange(
            from: sessionExpiryPrefix, to: sessionExpiryPrefix + millisecondBytes(of: now.addingTimeInterval(0.001)))
    }

    /// Milliseconds since 1970 of `date`, rounded down, 8 bytes big-endian (0 before 1970).
    static func millisecondBytes(of date: Date) -> [UInt8] {
        let milliseconds = UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded(.down)))
        return (0..<8).reversed().map { UInt8(truncatingIfNeeded: milliseconds >> (8 * UInt64($0))) }
    }

    /// Builds the indexes of a store written before they existed, once per process: in one
    /// write, every courier token and session is indexed and the version noted. Several
    /// processes doing it at once write the same keys.
    func ensureIndexes() throws {
        guard !indexes.isBuilt else { return }
        try data.write { writer in
            guard try writer.get(Self.indexVersionKey) != Self.indexVersion else { return }
            // A damaged entry is left unindexed rather than blocking every sign-in.
            for pair in try writer.scan(KeyRange(prefix: Self.courierPrefix), limit: Int.max) {
                guard let entry = try? Self.decode(CourierEntry.self)(pair.value) else { continue }
                let digest = Array(pair.key.dropFirst(Self.courierPrefix.count))
                try writer.set(Self.courierIndexKey(entry.namespace, digest: digest), [])
            }
            for pair in try writer.scan(KeyRange(prefix: Self.sessionPrefix), limit: Int.max) {
                guard let entry = try? Self.decode(SessionEntry.self)(pair.value) else { continue }
                let digest = Array(pair.key.dropFirst(Self.sessionPrefix.count))
                try writer.set(Self.sessionExpiryKey(entry.expires, digest: digest), [])
            }
            try writer.set(Self.indexVersionKey, Self.indexVersion)
        }
        indexes.markBuilt()
    }
}

/// Whether this process has seen the auth indexes built (``AuthStore/ensureIndexes()``).
final class AuthIndexState: Sendable {
    private let built = Atomic<Bool>(false)

    var isBuilt: Bool { built.load(ordering: .acquiring) }

    func markBuilt() { built.store(true, ordering: .releasing) }
}
