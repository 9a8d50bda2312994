import Foundation
import Stratus
public import StratusBackend
import Synchronization

/// A system test of incremental sync under concurrent writes, for any backend: one client
/// writes thousands of seeded random creates, modifications and deletions across two zones
/// while a second client, on another thread and its own `CKContainer` over a second backend
/// handle on the same store, follows with change tokens in small batches. When the writer has
/// stopped, the follower syncs once more, and its mirror must equal the store exactly.
///
/// It lives here rather than in the conformance suite because it is a stress test (threads,
/// thousands of operations, seconds of run time) and not a contract case; each backend's test
/// target runs it with two handles of its own (`SQLiteSyncTests`, `InMemorySyncTests`).
///
/// Its parts also run apart, for writers in processes of their own: ``write(_:to:)`` (which
/// `StratusTestProbe sync-writer` runs, each writer with its own
/// ``Configuration-swift.struct/recordNamePrefix``), ``follow(_:database:until:)`` and
/// ``compare(_:store:mirrors:saved:)`` (`LMDBMultiProcessSyncTests`).
///
/// What it checks:
/// - every batch of the writer succeeds in full (it is the only writer, so its change tags are
///   always current);
/// - every fetch of the follower (`fetchAllChanges == false`, one batch) succeeds, delivers at
///   most ``Configuration-swift.struct/resultsLimit`` changes, and delivers no record twice;
/// - after the final sync, the follower's mirror (record name → change tag and fields) equals
///   a `nil`-token fetch of each zone, and equals what the writer saved.
public enum ConcurrentSyncScenario {
    /// What to run.
    public struct Configuration: Sendable {
        /// The seed of every random choice of the writer.
        public var seed: UInt64
        /// How many creates, modifications and deletions the writer makes in all.
        public var operations = 3000
        /// The largest batch; each batch has a random size from 1 to this.
        public var maximumBatch = 50
        /// The follower's `resultsLimit`.
        public var resultsLimit = 7
        /// The custom zones written.
        public var zoneNames = ["SyncA", "SyncB"]
        /// The container both clients use.
        public var containerIdentifier = "iCloud.stratus.sync-scenario"
        /// What every record name the writer creates begins with; writers in several processes
        /// on one store use different prefixes, so that they never write the same record.
        public var recordNamePrefix = ""

        /// A configuration with `seed` and the defaults.
        public init(seed: UInt64) {
            self.seed = seed
        }
    }

    /// What happened, and what was wrong.
    public struct Report: Sendable, CustomStringConvertible {
        /// The writer's batches.
        public var batches = 0
        /// The writer's creates (including records created again under a deleted name).
        public var creates = 0
        /// The writer's modifications.
        public var modifications = 0
        /// The writer's deletions.
        public var deletions = 0
        /// The follower's fetches while the writer was writing.
        public var fetchesDuringWrites = 0
        /// The follower's fetches after the writer stopped.
        public var finalFetches = 0
        /// Changed records the follower applied.
        public var changesApplied = 0
        /// Deletions the follower applied.
        public var deletionsApplied = 0
        /// Records in the zones at the end.
        public var finalRecords = 0
        /// Wall-clock seconds of the writer.
        public var writerSeconds = 0.0
        /// Wall-clock seconds of the whole scenario.
        public var seconds = 0.0
        /// Every broken invariant, described; empty when the scenario passed.
        public var problems: [String] = []

        /// A textual description, for logs.
        public var description: String {
            "\(batches) batches (\(creates) creates, \(modifications) modifications, \(deletions) deletions); "
                + "follower: \(fetchesDuringWrites) fetches during writes + \(finalFetches) final, "
                + "\(changesApplied) changes and \(deletionsApplied) deletions applied; "
                + "\(finalRecords) records at the end; writer \(String(format: "%.2f", writerSeconds)) s, "
                + "all \(String(format: "%.2f", seconds)) s"
                + (problems.isEmpty ? "" : "; problems:\n" + problems.joined(separator: "\n"))
        }
    }

    /// Runs the scenario on a fresh store: the writer uses `writer`, the follower `follower`,
    /// two handles on the same store. The clients run on threads of their own; this suspends
    /// until both finished and the store was compared.
    public static func run(
        _ configuration: Configuration, writer: any DatabaseBackend, follower: any DatabaseBackend
    ) async -> Report {
        await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: runBlocking(configuration, writer: writer, follower: follower))
            }.start()
        }
    }

    /// ``run(_:writer:follower:)``, blocking the calling thread.
    private static func runBlocking(
        _ configuration: Configuration, writer: any DatabaseBackend, follower: any DatabaseBackend
    ) -> Report {
        let started = Date()
        let writerDatabase = CKContainer(identifier: configuration.containerIdentifier, backend: writer)
            .privateCloudDatabase
        let followerDatabase = CKContainer(identifier: configuration.containerIdentifier, backend: follower)
            .privateCloudDatabase
        let zoneIDs = configuration.zoneNames.map { CKRecordZone.ID(zoneName: $0, ownerName: CKCurrentUserDefaultName) }
        var report = Report()
        if let problem = createZones(zoneIDs, in: writerDatabase) {
            report.problems.append(problem)
            return report
        }

        let writerDone = Atomic<Bool>(false)
        let writerThread = Joinable {
            defer { writerDone.store(true, ordering: .releasing) }
            return write(configuration, to: writerDatabase)
        }
        let followerThread = Joinable {
            var state = FollowerState(configuration: configuration, zoneIDs: zoneIDs)
            state.follow(followerDatabase) { writerDone.load(ordering: .acquiring) }
            return state.report
        }
        let written = writerThread.join()
        let followed = followerThread.join()

        report.batches = written.batches
        report.creates = written.creates
        report.modifications = written.modifications
        report.deletions = written.deletions
        report.writerSeconds = written.seconds
        report.problems += written.problems
        report.fetchesDuringWrites = followed.fetchesDuringWrites
        report.finalFetches = followed.finalFetches
        report.changesApplied = followed.changesApplied
        report.deletionsApplied = followed.deletionsApplied
        report.problems += followed.problems

        let compared = compare(
            configuration, store: writerDatabase, mirrors: followed.mirrors, saved: [written.records])
        report.finalRecords = compared.records
        report.problems += compared.problems
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// The store, as a `nil`-token fetch of each zone sees it, compared with a follower's
    /// mirrors and with what the writers saved (zone name → record name → snapshot; writers
    /// in several processes never save the same record). Returns the number of records in the
    /// zones and every difference. Blocks the calling thread.
    public static func compare(
        _ configuration: Configuration, store database: CKDatabase, mirrors: [String: [String: RecordSnapshot]],
        saved: [[String: [String: RecordSnapshot]]]
    ) -> (records: Int, problems: [String]) {
        var records = 0
        var problems: [String] = []
        for zoneName in configuration.zoneNames {
            let zoneID = CKRecordZone.ID(zoneName: zoneName, ownerName: CKCurrentUserDefaultName)
            let full = ZoneChangeFetch.run(database, zoneID: zoneID, since: nil)
            if let error = full.error {
                problems.append("zone \(zoneName): nil-token fetch failed: \(error)")
                continue
            }
            var store: [String: RecordSnapshot] = [:]
            full.apply(to: &store)
            records += store.count
            for line in RecordSnapshot.differences(mirrors[zoneName] ?? [:], expected: store) {
                problems.append("zone \(zoneName), follower's mirror vs store: \(line)")
            }
            var expected: [String: RecordSnapshot] = [:]
            for writer in saved { expected.merge(writer[zoneName] ?? [:]) { first, _ in first } }
            for line in RecordSnapshot.differences(store, expected: expected) {
                problems.append("zone \(zoneName), store vs writers: \(line)")
            }
        }
        return (records, problems)
    }

    /// Creates the configured zones in `database` (blocking); returns a problem, or `nil`.
    public static func createZones(_ configuration: Configuration, in database: CKDatabase) -> String? {
        createZones(
            configuration.zoneNames.map { CKRecordZone.ID(zoneName: $0, ownerName: CKCurrentUserDefaultName) },
            in: database)
    }

    /// What one writer did. `StratusTestProbe sync-writer` writes it as JSON, so that a test
    /// can run writers in processes of their own.
    public struct WriterReport: Codable, Sendable {
        /// The writer's batches, creates, modifications and deletions.
        public var batches = 0, creates = 0, modifications = 0, deletions = 0
        /// Wall-clock seconds of the writing.
        public var seconds = 0.0
        /// Every batch or item that failed, described.
        public var problems: [String] = []
        /// The records as last saved (the server's copies): zone name → record name → snapshot.
        public var records: [String: [String: RecordSnapshot]] = [:]
    }

    /// Runs the writer on `database`, whose zones exist, blocking the calling thread (call
    /// it from a thread of your own, not from Swift concurrency's pool).
    public static func write(_ configuration: Configuration, to database: CKDatabase) -> WriterReport {
        let zoneIDs = configuration.zoneNames.map { CKRecordZone.ID(zoneName: $0, ownerName: CKCurrentUserDefaultName) }
        var state = WriterState(configuration: configuration, zoneIDs: zoneIDs)
        let start = Date()
        state.run(database)
        var report = WriterReport(
            batches: state.batches, creates: state.creates, modifications: state.modifications,
            deletions: state.deletions, seconds: Date().timeIntervalSince(start), problems: state.problems)
        for (zoneID, records) in state.records {
            report.records[zoneID.zoneName] = records.mapValues(RecordSnapshot.init)
        }
        return report
    }

    /// What the follower did.
    public struct FollowerReport: Sendable {
        /// Fetches while writers were writing, and after.
        public var fetchesDuringWrites = 0, finalFetches = 0
        /// Changed records and deletions applied to the mirror.
        public var changesApplied = 0, deletionsApplied = 0
        /// Everything that went wrong, described.
        public var problems: [String] = []
        /// The mirror: zone name → record name → snapshot.
        public var mirrors: [String: [String: RecordSnapshot]] = [:]
    }

    /// Follows the configured zones of `database` (which exist) with one-batch change fetches
    /// of `resultsLimit` until `writersFinished()` says every writer stopped, then syncs until
    /// no zone has more; runs on a thread of its own.
    public static func follow(
        _ configuration: Configuration, database: CKDatabase,
        until writersFinished: @escaping @Sendable () -> Bool
    ) async -> FollowerReport {
        await withCheckedContinuation { continuation in
            Thread {
                var state = FollowerState(
                    configuration: configuration,
                    zoneIDs: configuration.zoneNames.map {
                        CKRecordZone.ID(zoneName: $0, ownerName: CKCurrentUserDefaultName)
                    })
                state.follow(database, writerFinished: writersFinished)
                continuation.resume(returning: state.report)
            }.start()
        }
    }

    /// Creates the zones; returns a problem, or `nil`.
    private static func createZones(_ zoneIDs: [CKRecordZone.ID], in database: CKDatabase) -> String? {
        let operation = CKModifyRecordZonesOperation(recordZonesToSave: zoneIDs.map { CKRecordZone(zoneID: $0) })
        let error = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        operation.modifyRecordZonesResultBlock = { result in
            if case .failure(let failure) = result { error.withLock { $0 = failure } }
        }
        operation.completionBlock = { done.signal() }
        database.add(operation)
        done.wait()
        return error.withLock { $0 }.map { "creating the zones failed: \($0)" }
    }
}

/// The writer: seeded random batches, each one `CKModifyRecordsOperation`, until the
/// configured number of creates, modifications and deletions is made.
private struct WriterState: Sendable {
    let configuration: ConcurrentSyncScenario.Configuration
    let zoneIDs: [CKRecordZone.ID]
    var generator: SeededGenerator
    /// The records as last saved (the server's copies), by zone and name.
    var records: [CKRecordZone.ID: [String: CKRecord]] = [:]
    /// Names deleted, by zone, some of which are created again.
    var deletedNames: [CKRecordZone.ID: [String]] = [:]
    var batches = 0, creates = 0, modifications = 0, deletions = 0
    var seconds = 0.0
    var problems: [String] = []

    init(configuration: ConcurrentSyncScenario.Configuration, zoneIDs: [CKRecordZone.ID]) {
        self.configuration = configuration
        self.zoneIDs = zoneIDs
        self.generator = SeededGenerator(seed: configuration.seed)
    }

    mutating func run(_ database: CKDatabase) {
        var remaining = configuration.operations
        var nameCounter = 0
        while remaining > 0 && problems.isEmpty {
            batches += 1
            let size = Int.random(in: 1...min(configuration.maximumBatch, remaining), using: &generator)
            remaining -= size
            var saves: [CKRecord] = []
            var deletes: [CKRecord.ID] = []
            var used = Set<CKRecord.ID>()
            for _ in 0..<size {
                let zoneID = zoneIDs.randomElement(using: &generator)!
                let zoneRecords = records[zoneID] ?? [:]
                // Sorted, so that the same seed makes the same choices.
                let names = zoneRecords.keys.sorted().filter {
                    !used.contains(CKRecord.ID(recordName: $0, zoneID: zoneID))
                }
                let roll = Double.random(in: 0..<1, using: &generator)
                if roll < 0.2, let name = names.randomElement(using: &generator) {
                    let id = CKRecord.ID(recordName: name, zoneID: zoneID)
                    used.insert(id)
                    deletes.append(id)
                    deletions += 1
                } else if roll < 0.55, let name = names.randomElement(using: &generator) {
                    used.insert(CKRecord.ID(recordName: name, zoneID: zoneID))
                    let record = zoneRecords[name]!.copy() as! CKRecord
                    fill(record, batch: batches)
                    saves.append(record)
                    modifications += 1
                } else {
                    nameCounter += 1
                    let suffix = UInt16.random(in: 0...UInt16.max, using: &generator)
                    var name = "\(configuration.recordNamePrefix)s\(nameCounter)-\(suffix)"
                    if Int.random(in: 0..<4, using: &generator) == 0,
                        let old = deletedNames[zoneID]?.randomElement(using: &generator), zoneRecords[old] == nil,
                        !used.contains(CKRecord.ID(recordName: old, zoneID: zoneID))
                    {
                        name = old  // created again after a deletion
                    }
                    let id = CKRecord.ID(recordName: name, zoneID: zoneID)
                    used.insert(id)
                    let record = CKRecord(recordType: "SyncItem", recordID: id)
                    fill(record, batch: batches)
                    saves.append(record)
                    creates += 1
                }
            }
            save(saves, deleting: deletes, in: database)
        }
    }

    /// Sets the batch marker and changes, adds or removes a few fields.
    mutating func fill(_ record: CKRecord, batch: Int) {
        record["batch"] = Int64(batch)
        if Bool.random(using: &generator) {
            record["title"] = String(
                (0..<Int.random(in: 0...24, using: &generator)).map { _ in
                    "abz é漢🌩\"\n".randomElement(using: &generator)!
                })
        }
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: record["count"] = Int64.random(in: .min ... .max, using: &generator)
        case 1: record["count"] = nil
        default: break
        }
        if Bool.random(using: &generator) { record["score"] = Double.random(in: -1e6...1e6, using: &generator) }
        if Int.random(in: 0..<5, using: &generator) == 0 {
            record["data"] = Data(
                (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator)
                })
        }
        if Int.random(in: 0..<6, using: &generator) == 0 {
            record["tags"] = (0..<Int.random(in: 0...3, using: &generator)).map { "t\($0)" }
        }
    }

    /// Saves one batch; every item must succeed.
    mutating func save(_ saves: [CKRecord], deleting deletes: [CKRecord.ID], in database: CKDatabase) {
        let operation = CKModifyRecordsOperation(recordsToSave: saves, recordIDsToDelete: deletes)
        let saved = Mutex<[CKRecord.ID: Result<CKRecord, any Error>]>([:])
        let deleted = Mutex<[CKRecord.ID: Result<Void, any Error>]>([:])
        let final = Mutex<Result<Void, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        operation.perRecordSaveBlock = { id, result in saved.withLock { $0[id] = result } }
        operation.perRecordDeleteBlock = { id, result in deleted.withLock { $0[id] = result } }
        operation.modifyRecordsResultBlock = { result in final.withLock { $0 = result } }
        operation.completionBlock = { done.signal() }
        database.add(operation)
        done.wait()

        if case .failure(let error)? = final.withLock({ $0 }) {
            problems.append("writer batch \(batches) failed: \(error)")
            return
        }
        for (id, result) in saved.withLock({ $0 }) {
            switch result {
            case .success(let record): records[id.zoneID, default: [:]][id.recordName] = record
            case .failure(let error):
                problems.append("writer batch \(batches): saving \(id.recordName) failed: \(error)")
            }
        }
        for (id, result) in deleted.withLock({ $0 }) {
            switch result {
            case .success:
                records[id.zoneID]?[id.recordName] = nil
                deletedNames[id.zoneID, default: []].append(id.recordName)
            case .failure(let error):
                problems.append("writer batch \(batches): deleting \(id.recordName) failed: \(error)")
            }
        }
        let reported = saved.withLock { $0.count } + deleted.withLock { $0.count }
        if reported != saves.count + deletes.count {
            problems.append("writer batch \(batches): \(reported) results for \(saves.count + deletes.count) items")
        }
    }
}

/// The follower: one-batch change fetches of each zone in turn, applied to a mirror.
private struct FollowerState: Sendable {
    let configuration: ConcurrentSyncScenario.Configuration
    let zoneIDs: [CKRecordZone.ID]
    var mirrors: [CKRecordZone.ID: [String: RecordSnapshot]] = [:]
    var tokens: [CKRecordZone.ID: CKServerChangeToken] = [:]
    var fetchesDuringWrites = 0, finalFetches = 0, changesApplied = 0, deletionsApplied = 0
    var problems: [String] = []

    init(configuration: ConcurrentSyncScenario.Configuration, zoneIDs: [CKRecordZone.ID]) {
        self.configuration = configuration
        self.zoneIDs = zoneIDs
    }

    /// Follows the zones until `writerFinished()` says the writer stopped, then syncs until
    /// no zone has more to deliver.
    mutating func follow(_ database: CKDatabase, writerFinished: () -> Bool) {
        while !writerFinished() && problems.count < 10 {
            var caughtUp = true
            for zoneID in zoneIDs {
                fetchesDuringWrites += 1
                if fetchOnce(zoneID, database) { caughtUp = false }
            }
            // Nothing new: give the writer the processor for a moment.
            if caughtUp { usleep(200) }
        }
        // The writer has stopped: drain every zone.
        for zoneID in zoneIDs {
            var rounds = 0
            while problems.count < 10 {
                finalFetches += 1
                rounds += 1
                if !fetchOnce(zoneID, database) { break }
                if rounds > 100_000 {
                    problems.append("zone \(zoneID.zoneName): the final sync never ended")
                    break
                }
            }
        }
    }

    /// What the follower did, mirrors by zone name.
    var report: ConcurrentSyncScenario.FollowerReport {
        ConcurrentSyncScenario.FollowerReport(
            fetchesDuringWrites: fetchesDuringWrites, finalFetches: finalFetches, changesApplied: changesApplied,
            deletionsApplied: deletionsApplied, problems: problems,
            mirrors: Dictionary(uniqueKeysWithValues: mirrors.map { ($0.key.zoneName, $0.value) }))
    }

    /// Fetches one batch of `zoneID` and applies it; returns whether more is coming. A
    /// failed fetch leaves the token as it was (and returns `true`, to try again).
    mutating func fetchOnce(_ zoneID: CKRecordZone.ID, _ database: CKDatabase) -> Bool {
        let fetch = ZoneChangeFetch.run(
            database, zoneID: zoneID, since: tokens[zoneID], resultsLimit: configuration.resultsLimit,
            fetchAllChanges: false)
        if let error = fetch.error {
            problems.append("zone \(zoneID.zoneName): fetch failed: \(error)")
            return true
        }
        for failure in fetch.failures {
            problems.append("zone \(zoneID.zoneName): a fetch delivered an error: \(failure)")
        }
        let repeated = fetch.repeatedNames
        if !repeated.isEmpty {
            problems.append("zone \(zoneID.zoneName): one fetch delivered \(repeated) more than once")
        }
        if fetch.changes.count > configuration.resultsLimit {
            problems.append(
                "zone \(zoneID.zoneName): one fetch delivered \(fetch.changes.count) changes, "
                    + "more than resultsLimit \(configuration.resultsLimit)"
            )
        }
        guard let token = fetch.token else {
            problems.append("zone \(zoneID.zoneName): a fetch returned no token")
            return true
        }
        fetch.apply(to: &mirrors[zoneID, default: [:]])
        for change in fetch.changes {
            switch change {
            case .changed: changesApplied += 1
            case .deleted: deletionsApplied += 1
            case .failed: break
            }
        }
        tokens[zoneID] = token
        return fetch.moreComing
    }
}

/// A body running on a thread of its own (not Swift concurrency's pool, which blocking
/// waits would starve), joined for its result.
private final class Joinable<T: Sendable>: Sendable {
    private let result = Mutex<T?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> T) {
        let thread = Thread { [self] in
            let value = body()
            result.withLock { $0 = value }
            finished.signal()
        }
        thread.start()
    }

    /// Waits for the body and returns its result.
    func join() -> T {
        finished.wait()
        return result.withLock { $0! }
    }
}
