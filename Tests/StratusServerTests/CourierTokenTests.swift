import Foundation
import Stratus
import StratusInMemory
import Testing

@testable import StratusServer

/// Courier tokens in the auth store (decision 0014.4): found only by the token itself, at most
/// 20 per user, refused after 30 idle days, cursors that only move forward.
@Suite struct CourierTokenTests {
    static let container = "iCloud.com.example.app"

    func store() throws -> AuthStore {
        let store = AuthStore(engine: try Engine(backend: InMemoryBackend()))
        try store.makeTestUsers(["_alice", "_bob"], in: Self.container)
        return store
    }

    func create(_ store: AuthStore, user: String = "_alice", now: Date = Date()) throws -> String {
        try store.createCourier(
            container: Self.container, environment: .development, userRecordName: user, apnsEnvironment: "development",
            now: now
        ).token
    }

    @Test func aTokenIsFoundByItselfOnly() throws {
        let store = try store()
        let token = try create(store)
        let entry = try #require(try store.courier(presented: token))
        #expect(entry.userRecordName == "_alice")
        #expect(entry.cursor == 0)
        #expect(try store.courier(presented: String(token.reversed())) == nil)
        #expect(try store.courier(presented: "short") == nil)
    }

    @Test func aUserKeepsAtMostTwentyTheLeastRecentlyUsedGoingFirst() throws {
        let store = try store()
        let start = Date()
        let tokens = try (0..<AuthStore.maximumCouriersPerUser).map {
            try create(store, now: start.addingTimeInterval(Double($0)))
        }
        let bobs = try create(store, user: "_bob", now: start)
        let newest = try create(store, now: start.addingTimeInterval(100))
        #expect(try store.courier(presented: tokens[0]) == nil, "the least recently used went")
        #expect(try store.courier(presented: tokens[1]) != nil)
        #expect(try store.courier(presented: newest) != nil)
        #expect(try store.courier(presented: bobs) != nil, "another user's tokens are not counted")
    }

    @Test func anIdleTokenIsRefusedAfterThirtyDays() throws {
        let store = try store()
        let made = Date()
        let token = try create(store, now: made)
        #expect(try store.courier(presented: token, now: made.addingTimeInterval(29 * 86_400)) != nil)
        #expect(try store.courier(presented: token, now: made.addingTimeInterval(31 * 86_400)) == nil)
        #expect(try store.courier(presented: token, now: made) == nil, "and deleted")
    }

    @Test func theCursorOnlyMovesForward() throws {
        let store = try store()
        let token = try create(store)
        #expect(try store.acknowledge(courier: token, through: 5)?.cursor == 5)
        #expect(try store.acknowledge(courier: token, through: 3)?.cursor == 5)
        let other = try create(store)
        _ = try store.acknowledge(courier: other, through: 2)
        let alice = Namespace(container: Self.container, environment: .development, owner: "_alice")
        #expect(try store.lowestCursor(of: alice) == 2)
    }

    @Test func aTokenOfADisabledUserOrContainerIsRefused() throws {
        let store = try store()
        let alices = try create(store)
        let bobs = try create(store, user: "_bob")
        try store.disableUser(container: Self.container, userRecordName: "_alice")
        #expect(try store.courier(presented: alices) == nil, "a disabled user's notifications stay closed")
        #expect(try store.courier(presented: bobs) != nil, "another user is untouched")
        try store.disableContainer(Self.container)
        #expect(try store.courier(presented: bobs) == nil, "a disabled container's tokens are refused")
        _ = try store.createContainer(Self.container, environments: [])
        #expect(try store.courier(presented: bobs) != nil, "enabled again")
        let strangers = try create(store, user: "_nobody")
        #expect(try store.courier(presented: strangers) == nil, "a user the container does not have")
    }
}
