import Foundation
import Stratus
import StratusRemote
import StratusSQLite
import StratusTestSupport
import Testing

/// Notifications of a remote container (decision 0016.7): `CKContainer.notifications` and
/// `setNotificationHandler(_:failureHandler:)`, against a real `stratusd` on loopback.
@Suite("Remote containers: notifications")
struct RemoteNotificationTests {
    let fixture: RemoteFixture

    init() async throws {
        fixture = try await offPool { try RemoteFixture() }
    }

    static let owner = CKCurrentUserDefaultName

    @Test func eachSubscriptionFiresOncePerMatchingCommitWithCloudKitsFields() async throws {
        let container = fixture.alice()
        let scenario = NotificationScenario(container)
        try await scenario.subscribeToEverything()
        let feed = NotificationCollector.start(container.notifications)
        try await scenario.save("a", priority: 9)
        try await scenario.save("b", priority: 1)
        try await scenario.change("a", priority: 8)
        try await scenario.delete("a")
        try await scenario.save("marker", priority: 1)

        let received = await feed.wait(for: 13)
        #expect(feed.failure == nil && !feed.ended)
        await feed.stop()
        let zone = "zone notes Notes/\(Self.owner) private"
        let database = "database everything private"
        let commits: [[String]] = [
            ["query important a created Notes/\(Self.owner) private [priority=9 title=a]", zone, database],
            [zone, database],
            ["query important a updated Notes/\(Self.owner) private [priority=8 title=a]", zone, database],
            ["query important a deleted Notes/\(Self.owner) private [priority=8 title=a]", zone, database],
            [zone, database],
        ]
        let lines = received.map(describe)
        #expect(lines.count == 13, "\(lines)")
        var start = 0
        for commit in commits where start + commit.count <= lines.count {
            #expect(lines[start..<start + commit.count].sorted() == commit.sorted(), "\(lines)")
            start += commit.count
        }
        #expect(Set(received.compactMap { $0.notificationID }).count == received.count, "one ID per notification")

        let query = try #require(received.first { $0 is CKQueryNotification } as? CKQueryNotification)
        #expect(query.notificationType == .query)
        #expect(query.alertBody == "Something important")
        #expect(query.containerIdentifier == RemoteFixture.container)
        #expect(query.subscriptionOwnerUserRecordID == (try await container.userRecordID()))
        #expect(query.recordID == CKRecord.ID(recordName: "a", zoneID: NotificationScenario.notes))
        #expect(query.recordFields?["priority"] as? Int64 == 9)
        let zoneNote = try #require(received.first { $0 is CKRecordZoneNotification } as? CKRecordZoneNotification)
        #expect(zoneNote.notificationType == .recordZone)
        #expect(zoneNote.recordZoneID == NotificationScenario.notes)
        let databaseNote = try #require(received.first { $0 is CKDatabaseNotification } as? CKDatabaseNotification)
        #expect(databaseNote.notificationType == .database && databaseNote.databaseScope == .private)
    }

    @Test func aSequenceThatStopsAndANewOneGetWhatWasMissedInOrder() async throws {
        let container = fixture.alice()
        let scenario = NotificationScenario(container)
        try await scenario.subscribeToNewNotes()
        let first = NotificationCollector.start(container.notifications)
        try await scenario.save("n1")
        try await scenario.save("n2")
        _ = await first.wait(forRecord: "n2")
        let before = await first.stop()
        #expect(recordNames(before) == ["n1", "n2"])

        // Commits while nobody listens; the same container's next sequence gets them.
        for index in 3...5 { try await scenario.save("n\(index)") }
        let second = NotificationCollector.start(container.notifications)
        let again = await second.wait(forRecord: "n5")
        await second.stop()
        Self.expectInOrderWithoutRepeats(again, through: 5)
        #expect(Set(recordNames(before) + recordNames(again)) == Set((1...5).map { "n\($0)" }), "none lost")
        #expect(!again.contains { $0.subscriptionID == nil }, "the same container's token: no reset")

        // And so does a new container object of the same user, with a token of its own.
        for index in 6...7 { try await scenario.save("n\(index)") }
        let other = fixture.alice()
        let third = NotificationCollector.start(other.notifications)
        let fresh = await third.wait(forRecord: "n7")
        await third.stop()
        Self.expectInOrderWithoutRepeats(fresh, through: 7)
        #expect(recordNames(fresh).suffix(2) == ["n6", "n7"])
        // Entries the first token acknowledged were purged before the new token existed, which
        // its first answer reports as a reset (decision 0016, step 4): only ever first.
        #expect(fresh.dropFirst().allSatisfy { $0.subscriptionID != nil }, "\(fresh.map(describe))")
    }

    /// `notifications`' records are `n<k>` in increasing `k`, without a gap, ending at
    /// `n<last>`, and no notification ID comes twice.
    static func expectInOrderWithoutRepeats(
        _ notifications: [CKNotification], through last: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let numbers = recordNames(notifications).compactMap { Int($0.dropFirst()) }
        let expected = numbers.first.map { Array($0...last) } ?? []
        #expect(numbers == expected, "\(notifications.map(describe))", sourceLocation: sourceLocation)
        let ids = notifications.compactMap(\.notificationID)
        #expect(
            Set(ids).count == ids.count, "a position never comes twice in one sequence", sourceLocation: sourceLocation)
    }

    @Test func aSequenceOutlivesServerRestartsAndDeliversWhatFollows() async throws {
        let container = fixture.alice()
        let scenario = NotificationScenario(container)
        try await scenario.subscribeToNewNotes()
        let feed = NotificationCollector.start(container.notifications)
        try await scenario.save("r1")
        _ = await feed.wait(forRecord: "r1")

        fixture.server.stop()  // SIGTERM: a graceful shutdown while the poll waits
        let second = try fixture.server.restarted()
        defer { second.stop() }
        try await scenario.save("r2")
        _ = await feed.wait(forRecord: "r2")

        second.kill()  // SIGKILL: connections cut without an answer
        let third = try second.restarted()
        defer { third.stop() }
        try await scenario.save("r3")
        let received = await feed.wait(forRecord: "r3")
        await feed.stop()
        #expect(recordNames(received) == ["r1", "r2", "r3"], "\(received.map(describe))")
        #expect(feed.failure == nil)
    }

    @Test func aUserNeverSeesAnotherUsersNotifications() async throws {
        let alice = fixture.alice()
        let bob = fixture.bob()
        try await NotificationScenario(alice).subscribeToEverything()
        let bobs = NotificationScenario(bob)
        try await bobs.subscribeToEverything()
        let aliceFeed = NotificationCollector.start(alice.notifications)
        let bobFeed = NotificationCollector.start(bob.notifications)
        try await bobs.save("bob-1", priority: 9)
        try await bobs.save("bob-2", priority: 7)
        let bobsOwn = await bobFeed.wait(for: 6)
        #expect(recordNames(bobsOwn) == ["bob-1", "bob-2"], "bob's subscriptions fired")
        try await NotificationScenario(alice).save("alice-1", priority: 9)

        // Alice's first notifications are her own commit's: nothing of bob's came before.
        let alices = await aliceFeed.wait(for: 3)
        await aliceFeed.stop()
        await bobFeed.stop()
        #expect(alices.count == 3)
        #expect(recordNames(alices) == ["alice-1"], "\(alices.map(describe))")
        let aliceID = try await alice.userRecordID()
        #expect(alices.allSatisfy { $0.subscriptionOwnerUserRecordID == aliceID })
        #expect(bobsOwn.allSatisfy { $0.subscriptionOwnerUserRecordID != aliceID })
    }

    @Test func anotherUsersPublicWriteReachesAPublicSubscriptionWithThePublicScope() async throws {
        let alice = fixture.alice()
        let shouts = CKQuerySubscription(
            recordType: "Shout", predicate: NSPredicate(value: true), subscriptionID: "shouts",
            options: [.firesOnRecordCreation])
        _ = try await alice.publicCloudDatabase.save(shouts)
        let feed = NotificationCollector.start(alice.notifications)
        _ = try await fixture.bob().publicCloudDatabase.save(
            CKRecord(recordType: "Shout", recordID: CKRecord.ID(recordName: "hello")))
        let received = await feed.wait(forRecord: "hello")
        await feed.stop()
        #expect(received.map(describe) == ["query shouts hello created _defaultZone/\(Self.owner) public []"])
        let query = try #require(received.first as? CKQueryNotification)
        #expect(query.isPublicDatabase)
        #expect(query.subscriptionOwnerUserRecordID == (try await alice.userRecordID()))
    }

    @Test func theHandlerReceivesTheSameInOrder() async throws {
        let container = fixture.alice()
        let scenario = NotificationScenario(container)
        try await scenario.subscribeToNewNotes()
        let lines = Lines()
        container.setNotificationHandler { lines.append(describe($0)) }
        for name in ["h1", "h2", "h3"] { try await scenario.save(name) }
        let deadline = ContinuousClock.now + .seconds(NotificationCollector.patience)
        while lines.all.count < 3 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        container.setNotificationHandler(nil)
        #expect(
            lines.all == ["h1", "h2", "h3"].map { "query new-notes \($0) created Notes/\(Self.owner) private []" })
    }

    @Test func refusedCredentialsEndTheSequenceAndTheHandler() async throws {
        let anonymous = CKContainer(
            identifier: RemoteFixture.container, server: fixture.remoteServer(.apiToken(fixture.apiToken)))
        let refused = NotificationCollector.start(anonymous.notifications)
        _ = await refused.wait(within: NotificationCollector.patience) { _ in false }
        #expect(refused.failure?.code == .notAuthenticated, "\(String(describing: refused.failure))")

        let unknown = CKContainer(
            identifier: RemoteFixture.container,
            server: fixture.remoteServer(.session(apiToken: fixture.apiToken, webAuthToken: "no-such-session")))
        let failures = Lines()
        unknown.setNotificationHandler(
            { _ in failures.append("notification") }, failureHandler: { failures.append("\($0.code)") })
        let deadline = ContinuousClock.now + .seconds(NotificationCollector.patience)
        while failures.all.isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(failures.all == ["\(CKError.Code.notAuthenticated)"])
    }

    @Test func anEmbeddedContainerSaysNotificationsNeedAServer() async throws {
        let directory = try TemporaryDirectory(prefix: "embedded-notifications")
        defer { try? directory.remove() }
        let backend = try SQLiteBackend(
            configuration: .init(location: .file(path: directory.appending("e.sqlite").path)))
        let embedded = CKContainer(identifier: RemoteFixture.container, backend: backend)
        var iterator = embedded.notifications.makeAsyncIterator()
        do {
            let answer = try await iterator.next()
            Issue.record("an embedded container's sequence answered \(String(describing: answer))")
        } catch {
            #expect(error.code == .internalError)
            #expect(error.localizedDescription.contains("notifications need a server"), "\(error.localizedDescription)")
        }
    }

    /// A token that lost entries to the per-user limit is told to reset (a database
    /// notification), then gets the rest; a token created after the drops is not (see
    /// `NotificationLogSettingsHTTPTests`).
    @Test func droppedNotificationsComeAsAResetThenTheRest() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-notify-reset")
        defer { try? directory.remove() }
        let made = try provisionStratusd(container: RemoteFixture.container, users: ["alice"], in: directory)
        let server = try StratusDaemonProcess(
            environment: ["STRATUS_NOTIFICATIONS_MAX_PER_USER": "5"], directory: directory)
        defer { server.stop() }
        let container = CKContainer(
            identifier: RemoteFixture.container,
            server: RemoteServer(
                url: server.baseURL, credentials: .session(apiToken: made.apiToken, webAuthToken: made.sessions[0])))
        let scenario = NotificationScenario(container)
        try await scenario.subscribeToNewNotes()
        // The container's token takes x0, and is acknowledged up to it when the feed stops.
        let first = NotificationCollector.start(container.notifications)
        try await scenario.save("x0")
        _ = await first.wait(forRecord: "x0")
        await first.stop()
        for index in 1...7 { try await scenario.save("x\(index)") }

        // Past the five kept, x1 and x2 were dropped before this token saw them.
        let feed = NotificationCollector.start(container.notifications)
        let received = await feed.wait(forRecord: "x7")
        await feed.stop()
        let reset = try #require(received.first as? CKDatabaseNotification, "\(received.map(describe))")
        #expect(reset.subscriptionID == nil && reset.databaseScope == .private)
        #expect(reset.containerIdentifier == RemoteFixture.container)
        #expect(recordNames(received) == ["x3", "x4", "x5", "x6", "x7"], "the newest five are kept")
    }

    @Test func cancellingTheConsumerEndsAWaitingPollPromptly() async throws {
        let container = fixture.alice()
        try await NotificationScenario(container).subscribeToNewNotes()
        let feed = NotificationCollector.start(container.notifications)
        try await NotificationScenario(container).save("w1")
        _ = await feed.wait(forRecord: "w1")  // the next poll now waits on the server
        try await Task.sleep(for: .seconds(1))
        let cancelled = ContinuousClock.now
        await feed.stop()
        #expect(ContinuousClock.now - cancelled < .seconds(15), "the server would hold the poll for 25 s")
        #expect(feed.ended && feed.failure == nil)
    }
}
