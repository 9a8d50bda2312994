import Foundation
import Stratus
import StratusTestSupport
import Testing

/// An open server-sent events stream checks its courier token before each write (commit
/// 5773a02): once its user is disabled it ends, and what the user's subscriptions fire
/// afterwards never reaches it.
@Suite("stratusd: a refused courier ends its event stream")
struct NotificationStreamRefusalTests {
    /// Alice's stream is open when `stratusd admin user disable` runs; Bob's public write then
    /// fires Alice's query subscription (made before), and the entry is logged for her — but
    /// the stream ends, without it.
    @Test func anOpenStreamEndsWithoutDeliveringOnceItsUserIsDisabled() async throws {
        let ws = try WebServicesFixture()
        try ws.subscribePublic(ws.aliceSession, [NotificationEndpointTests.subscriptions[0]])
        let courier = try await ws.courierPath(as: .alice)
        // 300 s: far past a stream's keep-alive (15 s), so only the server ends it in time.
        let stream = try OpenEventStream(
            url: ws.server.baseURL.absoluteString + "/" + courier + "/events", seconds: 300)
        #expect(await stream.waitFor(": stream", within: 120), "the stream opened: \(stream.text)")

        let alice = try ws.userRecordName(ws.aliceSession)
        let arguments = ["user", "disable", "--container", WebServicesFixture.container, alice] + ws.backendArguments
        let directory = ws.directory
        let disabled = try await offPool { try runAdmin(arguments, in: directory) }
        #expect(disabled.status == 0, "\(disabled.errors)")
        try await ws.saveNotes(["after"], priority: 9, as: .bob, database: "public", zone: "_defaultZone")
        #expect(try Self.lastPosition(of: alice, in: ws) == 1, "Bob's write fired Alice's subscription")

        let ended = await stream.waitForEnd(within: 240, orUntil: "event: notification")
        #expect(ended && stream.endedByTheServer, "the server ended the stream: \(stream.text)")
        #expect(!stream.text.contains("event: notification"), "nothing delivered after the disable: \(stream.text)")
        #expect(try await ws.poll(courier).status == 401, "and the token is refused")
    }

    /// The last position in `user`'s notification log (0 when it is empty).
    static func lastPosition(of user: String, in ws: WebServicesFixture) throws -> Int64 {
        try ws.withStore { engine in
            let namespace = Namespace(container: WebServicesFixture.container, environment: .development, owner: user)
            return try engine.notificationLog(namespace: namespace).head().next - 1
        }
    }
}
