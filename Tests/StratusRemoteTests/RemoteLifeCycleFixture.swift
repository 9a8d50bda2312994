import Foundation
import Stratus
import StratusRemote
import StratusTestSupport
import Testing

/// The setting of ``RemoteLifeCycleTests``: a `stratusd` with a 2 s long-lived lease — over
/// its default SQLite store, or over a private PostgreSQL with a second `stratusd` on the same
/// database — a user's credentials file for the probe, and the zones: `Feed`, filled with
/// records `f0`… in order, which the long-lived fetch reads one per page, and `Saves`, which
/// the long-lived modify writes.
final class RemoteLifeCycleFixture: Sendable {
    static let container = "iCloud.com.example.lifecycle"
    static let lease = ["--long-lived-lease-seconds", "2"]

    let directory: TemporaryDirectory
    let server: StratusDaemonProcess
    /// The second `stratusd` on the same PostgreSQL database, when there is one.
    let other: StratusDaemonProcess?
    let account: RemoteProbeAccount
    /// `["--backend", url]` of the PostgreSQL database, `[]` for the default SQLite store.
    let backendArguments: [String]
    private let postgres: PostgreSQLPrivateServer?

    /// Starts the server(s) and fills `Feed` with `records` records.
    init(postgres: Bool = false, records: Int) async throws {
        directory = try TemporaryDirectory(prefix: "stratus-life-cycle")
        let database = postgres ? try PostgreSQLPrivateServer() : nil
        self.postgres = database
        backendArguments = database.map { ["--backend", $0.url.description] } ?? []
        let made = try provisionStratusd(
            container: Self.container, users: ["alice"], in: directory, backendArguments: backendArguments)
        server = try StratusDaemonProcess(arguments: backendArguments + Self.lease, directory: directory)
        other =
            postgres ? try StratusDaemonProcess(arguments: backendArguments + Self.lease, directory: directory) : nil
        account = try RemoteProbeAccount(
            apiToken: made.apiToken, webAuthToken: made.sessions[0], container: Self.container, in: directory)
        let remote = RemoteServer(
            url: server.baseURL, credentials: .session(apiToken: made.apiToken, webAuthToken: made.sessions[0]))
        try await Self.prepare(CKContainer(identifier: Self.container, server: remote).privateCloudDatabase, records)
    }

    /// Kills the servers (SIGKILL: a frozen one ignores SIGTERM), removes the directory and
    /// stops PostgreSQL.
    deinit {
        server.kill()
        other?.stop()
        try? directory.remove()
        postgres?.stop()
    }

    /// Makes the zones and fills `Feed` with records `f0`… in order.
    private static func prepare(_ database: CKDatabase, _ records: Int) async throws {
        for name in ["Feed", "Saves"] { _ = try await database.save(CKRecordZone(zoneName: name)) }
        let zoneID = CKRecordZone.ID(zoneName: "Feed", ownerName: CKCurrentUserDefaultName)
        for start in stride(from: 0, to: records, by: 300) {
            let batch = (start..<min(records, start + 300)).map { index in
                let record = CKRecord(recordType: "Item", recordID: .init(recordName: "f\(index)", zoneID: zoneID))
                record["n"] = Int64(index)
                return record
            }
            let saved = try await database.modifyRecords(saving: batch, deleting: []).saveResults
            #expect(saved.values.allSatisfy { (try? $0.get()) != nil }, "filling the fetched zone")
        }
    }
}
