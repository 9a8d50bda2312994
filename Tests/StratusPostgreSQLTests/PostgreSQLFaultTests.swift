import Foundation
import Stratus
import StratusBackend
import StratusPostgreSQL
import StratusTestSupport
import Synchronization
import Testing

/// Connections killed under load (`pg_terminate_backend`): operations fail retryably or
/// succeed, nothing acknowledged is lost, and the backend recovers without being reopened.
@Suite("PostgreSQL faults")
struct PostgreSQLFaultTests {
    @Test func terminatedConnectionsLoseNothingAcknowledged() async throws {
        let storage = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        let name = "stratus-fault-\(UInt32.random(in: 0...UInt32.max))"
        var configuration = try PostgreSQLTestServer.configuration(storage, pool: 3)
        configuration.applicationName = name
        let writerBackend = try PostgreSQLBackend(configuration: configuration)
        let followerBackend = try PostgreSQLBackend(configuration: configuration)
        defer {
            try? writerBackend.close()
            try? followerBackend.close()
        }
        let container = "iCloud.stratus.pg-faults"
        let writer = CKContainer(identifier: container, backend: writerBackend).privateCloudDatabase
        let follower = CKContainer(identifier: container, backend: followerBackend).privateCloudDatabase
        let zoneID = CKRecordZone.ID(zoneName: "Faults", ownerName: CKCurrentUserDefaultName)
        try TestClients.createZones([zoneID], in: writer)

        var adminConfiguration = try PostgreSQLTestServer.configuration(storage, pool: 1)
        adminConfiguration.applicationName = "stratus-fault-admin"
        let admin = try PostgreSQLConnection(parameters: adminConfiguration.connectionParameters, redact: [])
        defer { admin.close() }

        let writing = Atomic<Bool>(true)
        // The writer goes on until the killer has terminated enough connections to matter: on a
        // fast machine 80 batches are written before the first kill lands.
        let minimumKills = 20
        let kills = Atomic<Int>(0)
        let writerThread = TestThread {
            () -> (acknowledged: [String: RecordSnapshot], failures: [String], retries: Int) in
            defer { writing.store(false, ordering: .releasing) }
            var acknowledged: [String: RecordSnapshot] = [:]
            var failures: [String] = []
            var retries = 0
            var batch = 0
            while batch < 80 || (kills.load(ordering: .acquiring) < minimumKills && batch < 5_000) {
                defer { batch += 1 }
                let records = (0..<10).map { index in
                    let record = CKRecord(
                        recordType: "Item", recordID: CKRecord.ID(recordName: "b\(batch)-\(index)", zoneID: zoneID))
                    record["value"] = Int64(batch * 100 + index)
                    return record
                }
                while true {
                    // `.allKeys`: a batch whose commit outcome was unknown is safely saved again.
                    let outcome = TestClients.modify(writer, saving: records, deleting: [], policy: .allKeys)
                    if outcome.errors.isEmpty {
                        for case .success(let record) in outcome.saved.values {
                            acknowledged[record.recordID.recordName] = RecordSnapshot(record)
                        }
                        break
                    }
                    guard outcome.errors.allSatisfy(TestClients.isRetryable), retries < 2_000 else {
                        failures.append("batch \(batch): \(outcome.errors.first!)")
                        break
                    }
                    retries += 1
                    usleep(5_000)
                }
            }
            return (acknowledged, failures, retries)
        }
        let followerThread = TestThread {
            TestClients.follow(follower, zoneIDs: [zoneID]) { !writing.load(ordering: .acquiring) }
        }
        // The killer has a thread of its own too: on the cooperative pool, under a parallel test
        // run whose other tests block its two threads, its 40 ms ticks came seconds apart.
        let killerThread = TestThread { () -> String? in
            while writing.load(ordering: .acquiring) {
                usleep(40_000)
                do {
                    let results = try admin.run([
                        PostgreSQLStatement(
                            "SELECT count(pg_terminate_backend(pid))::bigint FROM pg_stat_activity WHERE application_name = $1",
                            [.text(name)])
                    ])
                    kills.add(Int(results[0].integer(row: 0, column: 0) ?? 0), ordering: .releasing)
                } catch {
                    writing.store(false, ordering: .releasing)
                    return "the admin connection failed: \(error)"
                }
            }
            return nil
        }
        let written = await writerThread.value()
        let followed = await followerThread.value()
        let killerProblem = await killerThread.value()
        #expect(killerProblem == nil, "\(killerProblem ?? "")")
        #expect(written.failures.isEmpty, "\(written.failures.prefix(5))")
        #expect(followed.problems.isEmpty, "\(followed.problems.prefix(5))")
        #expect(kills.load(ordering: .acquiring) >= minimumKills)
        let store = try TestClients.store(writer, zoneID: zoneID)
        let lost = written.acknowledged.filter { store[$0.key] == nil }
        #expect(lost.isEmpty, "acknowledged but lost: \(lost.keys.sorted().prefix(10))")
        #expect(RecordSnapshot.differences(followed.mirrors[zoneID] ?? [:], expected: store).isEmpty)
        print(
            "PostgreSQL faults: \(kills.load(ordering: .acquiring)) connections terminated, \(written.retries) retried batches, \(store.count) records"
        )
    }
}
