import Foundation
import Stratus
import StratusSQLite
import StratusTestSupport
import Testing

/// A user's submitted operations running at once are bounded (decision 0014.8): beyond
/// `HostedJournal.maximumRunningPerUser` the next submission is refused with CloudKit's 429
/// `THROTTLED` and a `retryAfter`, until one of them finishes or is cancelled.
@Suite("stratusd: long-lived operations per user")
struct LongLivedLimitTests {
    @Test func aUserWithTheMostRunningOperationsGetsThrottled() async throws {
        let ws = try WebServicesFixture()
        let caller = try await ws.post("users/caller", [String: Any](), database: "private")
        let alice = try #require(caller.json["userRecordName"] as? String, "\(caller.json)")
        #expect(ws.server.stop() == 0)
        // Alice's operations, running in another process that holds their leases for an hour.
        let engine = try Engine(
            backend: try SQLiteBackend(
                configuration: .init(location: .file(path: ws.directory.path + "/.stratus/stratus.sqlite"))))
        let owner = Namespace(container: WebServicesFixture.container, environment: .development, owner: alice)
        let journal = try HostedJournal(engine: engine, owner: owner)
        let operation = LongLivedEndpointTests.zoneChanges()
        for index in 0..<HostedJournal.maximumRunningPerUser {
            _ = try journal.submit(
                try LongLivedSubmission(encoding: operation), id: "held-\(index)",
                target: JournalTarget(namespace: owner, caller: Caller(userRecordName: alice, role: .user)),
                scope: .private, listed: true, holder: "elsewhere", leaseExpiry: Date().timeIntervalSince1970 + 3600)
        }
        let restarted = try StratusDaemonProcess(arguments: ws.backendArguments, directory: ws.directory)
        defer { restarted.stop() }
        let refused = try await ws.submit(LongLivedEndpointTests.modify(1), id: "one-more", at: restarted.baseURL)
        #expect(refused.status == 429, "\(refused.json)")
        #expect(refused.json["serverErrorCode"] as? String == "THROTTLED")
        #expect((refused.json["retryAfter"] as? NSNumber)?.intValue == 5, "\(refused.json)")
        #expect((refused.json["reason"] as? String)?.contains("\(HostedJournal.maximumRunningPerUser)") == true)
        // Bob is not alice: his submissions are his own count.
        let bobs = try await ws.submit(LongLivedEndpointTests.modify(1), id: "bobs", as: .bob, at: restarted.baseURL)
        #expect(bobs.status == 200, "\(bobs.json)")
        let cancelled = try await ws.operations("POST", "/held-0/cancel", at: restarted.baseURL)
        #expect(cancelled.status == 200, "\(cancelled.json)")
        let accepted = try await ws.submit(LongLivedEndpointTests.modify(1), id: "one-more", at: restarted.baseURL)
        #expect(accepted.status == 200, "\(accepted.json)")
    }
}
