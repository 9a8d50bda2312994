import Foundation
import Stratus
import StratusTestSupport
import Testing

/// Issue 12's many-clients proof: 4 writer processes and 2 syncer processes through one
/// `stratusd` (SQLite), and through two `stratusd` on one PostgreSQL database, the clients
/// split across both — 0 changes missed, 0 duplicated (``ManyClientsScenario``).
@Suite("Remote containers: many client processes")
struct ManyClientsTests {
    static let container = "iCloud.com.example.many"

    @Test func fourWritersAndTwoSyncersThroughOneStratusd() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-many")
        defer { try? directory.remove() }
        let made = try provisionStratusd(container: Self.container, users: ["alice"], in: directory)
        let server = try StratusDaemonProcess(directory: directory)
        defer { server.stop() }
        let scenario = try ManyClientsScenario(
            servers: [server], account: account(made, directory), apiToken: made.apiToken,
            session: made.sessions[0], directory: directory)
        let figures = try await scenario.run()
        print("ManyClientsTests, one stratusd (SQLite), seed \(scenario.seed): \(figures)")
    }

    @Test func fourWritersAndTwoSyncersThroughTwoStratusdOnOnePostgreSQL() async throws {
        let database = try PostgreSQLPrivateServer()
        defer { database.stop() }
        let directory = try TemporaryDirectory(prefix: "stratus-many-pg")
        defer { try? directory.remove() }
        let backend = ["--backend", database.url.description]
        let made = try provisionStratusd(
            container: Self.container, users: ["alice"], in: directory, backendArguments: backend)
        let first = try StratusDaemonProcess(arguments: backend, directory: directory)
        defer { first.stop() }
        let second = try StratusDaemonProcess(arguments: backend, directory: directory)
        defer { second.stop() }
        let scenario = try ManyClientsScenario(
            servers: [first, second], account: account(made, directory), apiToken: made.apiToken,
            session: made.sessions[0], directory: directory)
        let figures = try await scenario.run()
        print("ManyClientsTests, two stratusd on one PostgreSQL, seed \(scenario.seed): \(figures)")
    }

    /// The writers' records sometimes hold an empty string list, which a remote save once
    /// refused as an asset (every empty array casts to `[CKAsset]`); it round trips as an
    /// embedded save does.
    @Test func anEmptyListIsSavedThroughARemoteContainer() async throws {
        let fixture = try await offPool { try RemoteFixture() }
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "empty-list"))
        record["tags"] = [String]()
        record["n"] = Int64(1)
        let saved = try await fixture.alice().privateCloudDatabase.save(record)
        let fetched = try await fixture.alice().privateCloudDatabase.record(for: record.recordID)
        #expect(saved["tags"] as? [String] == [])
        #expect(fetched["tags"] as? [String] == [])
        #expect(fetched["n"] as? Int64 == 1)
    }

    private func account(_ made: StratusdProvision, _ directory: TemporaryDirectory) throws -> RemoteProbeAccount {
        try RemoteProbeAccount(
            apiToken: made.apiToken, webAuthToken: made.sessions[0], container: Self.container, in: directory)
    }
}
