import Foundation
import Logging
import StratusSQLite
import StratusTestSupport
import Synchronization
import Testing

@testable import Stratus
@testable import StratusServer

/// stratusd's periodic journal purge on a real SQLite file (decision 0014.11): one round of
/// `LongLivedMaintenance` removes the entries past their retention that nobody listed, and
/// nothing else.
@Suite("stratusd: the long-lived journal purge")
struct LongLivedMaintenanceTests {
    static let owner = Namespace(container: "iCloud.com.example.purge", environment: .development, owner: "_alice")

    @Test func aRoundPurgesExpiredEntriesNobodyListed() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-purge")
        defer { try? directory.remove() }
        let engine = try Engine(
            backend: try SQLiteBackend(configuration: .init(location: .file(path: directory.path + "/store.sqlite"))))
        let clock = JournalClock()
        engine.journalState.settings.withLock { settings in
            settings.clock = { Date(timeIntervalSince1970: clock.seconds.withLock { $0 }) }
        }
        let server = ServerState(
            engine: engine, limits: StratusServer.Limits(engineThreads: 1), maximumBodyBytes: 1 << 20,
            servesTLS: false, logger: Logger(label: "test.purge"))
        server.executor.start()
        let journal = try HostedJournal(engine: engine, owner: Self.owner)
        let caller = Caller(userRecordName: "_alice", role: .user)
        for (id, listed) in [("modify", false), ("kept", true), ("running", true)] {
            let operation = CKModifyRecordsOperation(
                recordsToSave: nil, recordIDsToDelete: [CKRecord.ID(recordName: id)])
            _ = try journal.submit(
                try LongLivedSubmission(encoding: operation), id: id,
                target: JournalTarget(namespace: Self.owner, caller: caller), scope: .private, listed: listed,
                holder: "elsewhere", leaseExpiry: .greatestFiniteMagnitude)
            if id != "running" { #expect(try journal.cancel(id)) }
        }
        let maintenance = LongLivedMaintenance(server: server)
        #expect(try await maintenance.once() == 0)
        clock.seconds.withLock { $0 += 3_601 }
        #expect(try await maintenance.once() == 1, "the unlisted entry is kept an hour")
        #expect(try journal.status("modify") == nil && journal.status("kept") != nil)
        #expect(try journal.status("running") != nil)
        try await server.executor.shutdown()
    }
}

/// A journal clock the test moves forward.
final class JournalClock: Sendable {
    let seconds = Mutex<Double>(1_000_000)
}
