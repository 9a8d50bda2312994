import Foundation
import Stratus
import StratusBackend
import StratusInMemory
import Testing

@testable import StratusServer

/// The auth data's indexes (decision 0013.2): a user's courier tokens are found without reading
/// any other user's, expired sessions without reading live ones, and a store written before the
/// indexes gets them built on first use.
@Suite struct AuthIndexTests {
    static let container = "iCloud.com.example.app"
    static let alice = Namespace(container: container, environment: .development, owner: "_alice")

    func courier(_ store: AuthStore, user: String = "_alice", now: Date = Date()) throws -> String {
        try store.createCourier(
            container: Self.container, environment: .development, userRecordName: user, apnsEnvironment: "development",
            now: now
        ).token
    }

    func session(_ store: AuthStore, user: String, ttl: TimeInterval, now: Date) throws -> String {
        try store.createContainer(Self.container, environments: [.development])
        return try store.createSession(
            container: Self.container, environment: .development, externalUserID: user, ttl: ttl, now: now
        ).token
    }

    func keys(_ engine: Engine, under prefix: [UInt8]) throws -> Int {
        try engine.serverData.read { try $0.scan(KeyRange(prefix: prefix), limit: Int.max).count }
    }

    /// Removes the indexes and their version, as a store written before them has none.
    func dropIndexes(_ engine: Engine) throws {
        try engine.serverData.write { writer in
            for prefix in [AuthStore.courierIndexPrefix, AuthStore.sessionExpiryPrefix, AuthStore.indexVersionKey] {
                try writer.clearRange(KeyRange(prefix: prefix))
            }
        }
    }

    @Test func theLowestCursorIsTheUsersOwnAndForgetsADeletedToken() throws {
        let store = AuthStore(engine: try Engine(backend: InMemoryBackend()))
        try store.makeTestUsers(["_alice", "_bob"], in: Self.container)
        let made = Date()
        let first = try courier(store, now: made)
        let second = try courier(store, now: made)
        _ = try courier(store, user: "_bob", now: made)
        _ = try store.acknowledge(courier: first, through: 7, now: made)
        _ = try store.acknowledge(courier: second, through: 3, now: made)
        #expect(try store.lowestCursor(of: Self.alice) == 3, "Bob's token at 0 is not Alice's")
        _ = try store.acknowledge(courier: first, through: 9, now: made.addingTimeInterval(31 * 86_400))
        #expect(try store.courier(presented: second, now: made.addingTimeInterval(31 * 86_400)) == nil)
        #expect(try store.lowestCursor(of: Self.alice) == 9, "the idle token went with its index entry")
    }

    @Test func aStoreWrittenBeforeTheIndexesGetsThemOnFirstUse() throws {
        let engine = try Engine(backend: InMemoryBackend())
        let old = AuthStore(engine: engine)
        try old.makeTestUsers(["_alice"], in: Self.container)
        let start = Date()
        let tokens = try (0..<AuthStore.maximumCouriersPerUser).map {
            try courier(old, now: start.addingTimeInterval(Double($0)))
        }
        _ = try old.acknowledge(courier: tokens[5], through: 4, now: start.addingTimeInterval(50))
        let expired = try session(old, user: "carol", ttl: 60, now: start.addingTimeInterval(-120))
        let live = try session(old, user: "dave", ttl: 3_600, now: start)
        try dropIndexes(engine)

        let store = AuthStore(engine: engine)
        #expect(try store.lowestCursor(of: Self.alice) == 0)
        #expect(try keys(engine, under: AuthStore.courierIndexPrefix) == AuthStore.maximumCouriersPerUser)
        let newest = try courier(store, now: start.addingTimeInterval(100))
        #expect(try store.courier(presented: tokens[0]) == nil, "an unindexed token was counted and went first")
        #expect(try store.courier(presented: newest) != nil)
        #expect(try store.purgeExpiredSessions(now: start) == 1)
        #expect(try store.session(presented: expired, now: start.addingTimeInterval(-90)) == nil)
        #expect(try store.session(presented: live, now: start) != nil)
    }

    @Test func expiredSessionsArePurgedInBatchesAndLiveOnesKept() throws {
        let engine = try Engine(backend: InMemoryBackend())
        let store = AuthStore(engine: engine)
        let now = Date()
        let count = AuthStore.purgeBatch * 2 + 17
        for n in 0..<count {
            _ = try session(store, user: "u\(n % 50)", ttl: 60, now: now.addingTimeInterval(-Double(n) - 61))
        }
        let live = try (0..<3).map { try session(store, user: "live\($0)", ttl: 3_600, now: now) }
        let revoked = try session(store, user: "gone", ttl: 60, now: now.addingTimeInterval(-120))
        #expect(try store.revokeSession(presented: revoked))
        #expect(try keys(engine, under: AuthStore.sessionExpiryPrefix) == count + 3, "the revoked one's entry went")

        #expect(try store.purgeExpiredSessions(now: now) == count)
        #expect(try keys(engine, under: AuthStore.sessionPrefix) == 3)
        #expect(try keys(engine, under: AuthStore.sessionExpiryPrefix) == 3)
        for token in live { #expect(try store.session(presented: token, now: now) != nil) }
        #expect(try store.purgeExpiredSessions(now: now) == 0)
    }

    @Test func aSessionExpiringLaterInThePurgesMillisecondKeepsItsIndexEntry() throws {
        let store = AuthStore(engine: try Engine(backend: InMemoryBackend()))
        // 0.2 ms into a millisecond, so the expiry and the first purge share one.
        let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000 + 0.0002)
        let token = try session(store, user: "erin", ttl: 60, now: start)
        let expiry = start.addingTimeInterval(60)
        #expect(try store.purgeExpiredSessions(now: expiry.addingTimeInterval(-0.0001)) == 0)
        #expect(try store.session(presented: token, now: expiry.addingTimeInterval(-0.0001)) != nil)
        #expect(try store.purgeExpiredSessions(now: expiry) == 1, "still found through its index entry")
        #expect(try store.session(presented: token, now: start) == nil)
    }
}
