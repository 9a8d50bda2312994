import Foundation
import Stratus
import StratusBackend
import StratusPostgreSQL
import StratusTestSupport
import Synchronization
import Testing

/// The concurrency proof: independent backend instances, each with its own connections (as
/// separate processes would have), commit thousands of random changes to the same zones while
/// two clients sync with change tokens; every mirror must equal the store at the end.
@Suite("PostgreSQL concurrency")
struct PostgreSQLConcurrencyTests {
    @Test func fourWritersTwoFollowersNeverMissAChange() async throws {
        let report = try await MultiWriterScenario.run(writers: 4, batchesPerWriter: 60, isolation: .serializable)
        #expect(report.problems.isEmpty, "\(report.problems.prefix(20).joined(separator: "\n"))")
        #expect(report.changes >= 2000, "only \(report.changes) changes were committed")
        print("PostgreSQL multi-writer scenario: \(report)")
    }

    /// The same scenario with write transactions at READ COMMITTED: positions are then taken
    /// from a counter another writer may update concurrently, and the scenario must notice.
    @Test func brokenIsolationIsCaught() async throws {
        let report = try await MultiWriterScenario.run(writers: 4, batchesPerWriter: 40, isolation: .readCommitted)
        #expect(!report.problems.isEmpty, "READ COMMITTED writers lost nothing the scenario could see: \(report)")
    }
}

/// Writers, each on a backend of its own, on records of their own in shared zones; followers
/// on backends of their own.
enum MultiWriterScenario {
    struct Report: CustomStringConvertible {
        var changes = 0
        var retries = 0
        var fetches = 0
        var records = 0
        var seconds = 0.0
        var problems: [String] = []
        var description: String {
            "\(changes) changes committed (\(retries) batch retries), \(fetches) follower fetches, \(records) records at the end, \(String(format: "%.1f", seconds)) s, \(problems.count) problems"
        }
    }

    struct Written: Sendable {
        var records: [CKRecord.ID: CKRecord] = [:]
        var changes = 0
        var retries = 0
        var problems: [String] = []
    }

    static let zoneIDs = ["MW1", "MW2"].map { CKRecordZone.ID(zoneName: $0, ownerName: CKCurrentUserDefaultName) }

    static func run(
        writers: Int, batchesPerWriter: Int, isolation: PostgreSQLBackend.Configuration.WriteIsolation
    ) async throws -> Report {
        let started = Date()
        let storage = try PostgreSQLTestServer.makeStorage()
        defer { try? storage.destroy() }
        let container = "iCloud.stratus.pg-multi-writer"
        func open(_ isolation: PostgreSQLBackend.Configuration.WriteIsolation) throws -> PostgreSQLBackend {
            var configuration = try PostgreSQLTestServer.configuration(storage, pool: 2)
            configuration.writeIsolation = isolation
            return try PostgreSQLBackend(configuration: configuration)
        }
        let writerBackends = try (0..<writers).map { _ in try open(isolation) }
        let followerBackends = try (0..<2).map { _ in try open(.serializable) }
        defer { for backend in writerBackends + followerBackends { try? backend.close() } }
        try TestClients.createZones(
            zoneIDs, in: CKContainer(identifier: container, backend: writerBackends[0]).privateCloudDatabase)

        let running = Atomic<Int>(writers)
        let writerThreads = writerBackends.enumerated().map { index, backend in
            TestThread {
                defer { running.subtract(1, ordering: .releasing) }
                return write(
                    CKContainer(identifier: container, backend: backend).privateCloudDatabase, writer: index,
                    batches: batchesPerWriter)
            }
        }
        let followerThreads = followerBackends.map { backend in
            TestThread {
                TestClients.follow(
                    CKContainer(identifier: container, backend: backend).privateCloudDatabase, zoneIDs: zoneIDs
                ) {
                    running.load(ordering: .acquiring) == 0
                }
            }
        }
        var report = Report()
        var saved: [CKRecord.ID: CKRecord] = [:]
        for thread in writerThreads {
            let written = await thread.value()
            report.changes += written.changes
            report.retries += written.retries
            report.problems += written.problems
            saved.merge(written.records) { $1 }
        }
        let follows = await followerThreads.asyncMap { await $0.value() }
        let reader = CKContainer(identifier: container, backend: followerBackends[0]).privateCloudDatabase
        for zoneID in zoneIDs {
            let store = try TestClients.store(reader, zoneID: zoneID)
            report.records += store.count
            let expected = Dictionary(
                uniqueKeysWithValues: saved.filter { $0.key.zoneID == zoneID }.map {
                    ($0.key.recordName, RecordSnapshot($0.value))
                })
            for line in RecordSnapshot.differences(store, expected: expected) {
                report.problems.append("\(zoneID.zoneName), store vs writers: \(line)")
            }
            for (index, follow) in follows.enumerated() {
                report.problems += follow.problems.map { "follower \(index): \($0)" }
                for line in RecordSnapshot.differences(follow.mirrors[zoneID] ?? [:], expected: store) {
                    report.problems.append("\(zoneID.zoneName), follower \(index)'s mirror vs store: \(line)")
                }
            }
        }
        report.fetches = follows.reduce(0) { $0 + $1.fetches }
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// One writer: random batches of creates, modifications and deletions of its own records.
    static func write(_ database: CKDatabase, writer: Int, batches: Int) -> Written {
        var generator = SeededGenerator(seed: 0x5eed_0000 + UInt64(writer))
        var written = Written()
        var counter = 0
        for batch in 0..<batches where written.problems.count < 5 {
            var saves: [CKRecord] = []
            var deletes: [CKRecord.ID] = []
            var used = Set<CKRecord.ID>()
            let existing = written.records.keys.sorted { $0.recordName < $1.recordName }
            for _ in 0..<Int.random(in: 5...20, using: &generator) {
                let roll = Int.random(in: 0..<10, using: &generator)
                if roll < 2, let id = existing.randomElement(using: &generator), used.insert(id).inserted {
                    deletes.append(id)
                } else if roll < 5, let id = existing.randomElement(using: &generator), used.insert(id).inserted {
                    let record = written.records[id]!.copy() as! CKRecord
                    record["value"] = Int64.random(in: 0...1_000_000, using: &generator)
                    record["batch"] = Int64(batch)
                    saves.append(record)
                } else {
                    counter += 1
                    let zoneID = zoneIDs.randomElement(using: &generator)!
                    let record = CKRecord(
                        recordType: "Item", recordID: CKRecord.ID(recordName: "w\(writer)-\(counter)", zoneID: zoneID))
                    record["value"] = Int64.random(in: 0...1_000_000, using: &generator)
                    record["batch"] = Int64(batch)
                    saves.append(record)
                }
            }
            var attempts = 0
            while true {
                attempts += 1
                let outcome = TestClients.modify(database, saving: saves, deleting: deletes)
                if outcome.errors.isEmpty {
                    for (id, result) in outcome.saved {
                        if case .success(let record) = result { written.records[id] = record }
                    }
                    for id in outcome.deleted.keys { written.records[id] = nil }
                    written.changes += saves.count + deletes.count
                    break
                }
                if outcome.errors.allSatisfy(TestClients.isRetryable) && attempts < 50 {
                    written.retries += 1
                    usleep(UInt32.random(in: 1_000...20_000, using: &generator))
                    continue
                }
                written.problems.append("writer \(writer) batch \(batch): \(outcome.errors.first!)")
                break
            }
        }
        return written
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async -> T) async -> [T] {
        var results: [T] = []
        for element in self { results.append(await transform(element)) }
        return results
    }
}
