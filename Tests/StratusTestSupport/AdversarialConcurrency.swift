import Foundation
import Stratus
public import StratusBackend

/// The scenario, over any two handles of one store.
public enum AdversarialConcurrency {
    /// What the scenario saw.
    public struct Report: Sendable {
        /// Every broken promise, described; empty when all held.
        public var problems: [String] = []
        /// How many records the writers were told were saved.
        public var acknowledgedRecords = 0
        /// How many counter increments were acknowledged.
        public var acknowledgedIncrements = 0
        /// How many increments met a conflict (evidence that the writers really overlapped).
        public var conflicts = 0
        /// How many follower batches ran while the writers were writing.
        public var followerBatchesDuringWrites = 0
    }

    /// A lock-protected value shared by the scenario's tasks.
    final class Shared<Value: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Value
        init(_ value: Value) { stored = value }
        var value: Value { lock.withLock { stored } }
        func update(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
    }

    /// Codes a write may fail with under contention without being a bug; the write was not
    /// acknowledged and is simply not counted.
    static let retryable: Set<CKError.Code> = [.zoneBusy, .serviceUnavailable, .requestRateLimited]

    /// Runs the scenario over two handles of one store and reports what it saw.
    public static func run(
        first: any DatabaseBackend, second: any DatabaseBackend, writersPerContainer: Int = 3,
        recordsPerWriter: Int = 40, incrementsPerWriter: Int = 15
    ) async throws -> Report {
        let containers = [
            CKContainer(identifier: "iCloud.adversarial.concurrency", backend: first),
            CKContainer(identifier: "iCloud.adversarial.concurrency", backend: second),
        ]
        let databases = containers.map(\.privateCloudDatabase)
        let zoneID = CKRecordZone.ID(zoneName: "Shared")
        let problems = Shared<[String]>([])

        // Both containers create the zone at once: both succeed, one zone exists.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for database in databases {
                group.addTask { _ = try await database.save(CKRecordZone(zoneID: zoneID)) }
            }
            try await group.waitForAll()
        }
        let zones = try await databases[0].allRecordZones().map(\.zoneID)
        if zones.filter({ $0 == zoneID }).count != 1 {
            problems.update { $0.append("zones after a racing create: \(zones)") }
        }

        let counterID = CKRecord.ID(recordName: "counter", zoneID: zoneID)
        let counter = CKRecord(recordType: "Counter", recordID: counterID)
        counter["value"] = 0
        _ = try await databases[0].save(counter)

        let acknowledged = Shared<Set<String>>([])
        let increments = Shared<Int>(0)
        let writersDone = Shared<Bool>(false)
        let followerSeen = Shared<[String: Int]>([:])
        let conflicts = Shared<Int>(0)
        let followerBatchesDuringWrites = Shared<Int>(0)

        // The follower: syncs from its token while the writers write, then drains once more.
        let follower = Task {
            var token: CKServerChangeToken?
            while true {
                let finished = writersDone.value
                while true {
                    let batch = try await databases[1].recordZoneChanges(
                        inZoneWith: zoneID, since: token, resultsLimit: 7)
                    let names = batch.modificationResultsByID.keys.map(\.recordName)
                    if Set(names).count != names.count {
                        problems.update { $0.append("a batch listed a record twice") }
                    }
                    for (id, result) in batch.modificationResultsByID {
                        let value = (try? result.get())?.record["value"] as? Int ?? -1
                        followerSeen.update { $0[id.recordName] = value }
                    }
                    token = batch.changeToken
                    if !finished { followerBatchesDuringWrites.update { $0 += 1 } }
                    if !batch.moreComing { break }
                }
                if finished { break }
                try await Task.sleep(nanoseconds: 2_000_000)
            }
        }

        try await withThrowingTaskGroup(of: Void.self) { group in
            for (c, database) in databases.enumerated() {
                for w in 0..<writersPerContainer {
                    // Records in batches of 5.
                    group.addTask {
                        for batch in stride(from: 0, to: recordsPerWriter, by: 5) {
                            let records = (batch..<min(batch + 5, recordsPerWriter)).map { i in
                                let record = CKRecord(
                                    recordType: "Item",
                                    recordID: CKRecord.ID(recordName: "c\(c)w\(w)-\(i)", zoneID: zoneID))
                                record["value"] = i
                                return record
                            }
                            // A batch refused as busy was not applied: try it again.
                            for attempt in 1...20 {
                                do {
                                    let results = try await database.modifyRecords(saving: records, deleting: [])
                                    for (id, result) in results.saveResults {
                                        if case .failure(let error) = result {
                                            problems.update { $0.append("save \(id.recordName): \(error)") }
                                        } else {
                                            acknowledged.update { _ = $0.insert(id.recordName) }
                                        }
                                    }
                                    break
                                } catch let error as CKError where retryable.contains(error.code) && attempt < 20 {
                                    continue
                                } catch {
                                    problems.update { $0.append("batch c\(c)w\(w)-\(batch): \(error)") }
                                    break
                                }
                            }
                        }
                    }
                    // Increments of the shared counter, merging on conflict.
                    group.addTask {
                        for _ in 0..<incrementsPerWriter {
                            var attempt = 0
                            var record = try await database.record(for: counterID)
                            while true {
                                attempt += 1
                                record["value"] = (record["value"] as? Int ?? 0) + 1
                                do {
                                    _ = try await database.save(record)
                                    increments.update { $0 += 1 }
                                    break
                                } catch let error as CKError where error.code == .serverRecordChanged {
                                    guard let server = error.serverRecord, attempt < 200 else {
                                        problems.update { $0.append("conflict without a server record, or endless") }
                                        break
                                    }
                                    conflicts.update { $0 += 1 }
                                    record = server
                                } catch let error as CKError where retryable.contains(error.code) {
                                    record = try await database.record(for: counterID)
                                }
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        writersDone.update { $0 = true }
        try await follower.value

        // Every acknowledged write is stored, seen by both containers.
        let names = acknowledged.value
        for database in databases {
            let ids = names.map { CKRecord.ID(recordName: $0, zoneID: zoneID) }
            for chunk in stride(from: 0, to: ids.count, by: 200) {
                let results = try await database.records(for: Array(ids[chunk..<min(chunk + 200, ids.count)]))
                for (id, result) in results where (try? result.get()) == nil {
                    problems.update { $0.append("acknowledged \(id.recordName) is missing") }
                }
            }
        }
        // A fetch from nil, in small batches, lists every record exactly once.
        var token: CKServerChangeToken?
        var listed: [String] = []
        while true {
            let batch = try await databases[0].recordZoneChanges(inZoneWith: zoneID, since: token, resultsLimit: 9)
            listed += batch.modificationResultsByID.keys.map(\.recordName)
            token = batch.changeToken
            if !batch.moreComing { break }
        }
        if listed.count != Set(listed).count { problems.update { $0.append("a nil-token walk listed a record twice") } }
        if Set(listed) != names.union(["counter"]) {
            problems.update { $0.append("a nil-token walk listed \(listed.count), expected \(names.count + 1)") }
        }
        // The follower saw every acknowledged record, and the counter's final value.
        let seen = followerSeen.value
        let unseen = names.subtracting(seen.keys)
        if !unseen.isEmpty { problems.update { $0.append("the follower never saw \(unseen.sorted())") } }
        let final = try await databases[1].record(for: counterID)["value"] as? Int
        if final != increments.value {
            problems.update {
                $0.append("counter is \(String(describing: final)), \(increments.value) increments acknowledged")
            }
        }
        if seen["counter"] != final {
            problems.update { $0.append("the follower's counter is \(String(describing: seen["counter"]))") }
        }

        var report = Report()
        report.problems = problems.value
        report.acknowledgedRecords = names.count
        report.acknowledgedIncrements = increments.value
        report.conflicts = conflicts.value
        report.followerBatchesDuringWrites = followerBatchesDuringWrites.value
        return report
    }
}
