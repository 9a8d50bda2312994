import Foundation
import Logging
import Stratus
import StratusSQLite
import StratusTestSupport
import Synchronization
import Testing

@testable import StratusServer

/// stratusd's long-lived runner on a real SQLite file, driven round by round (decision
/// 0014.9–10): its lease rounds go on while the engine's threads refuse requests for load, a
/// crash-looping operation is finished with an error, and a waiting `events` request is woken
/// by the run's journal writes rather than by rereading.
@Suite("stratusd: the long-lived runner", .serialized)
struct LongLivedRunnerTests {
    static let owner = Namespace(container: "iCloud.com.example.runner", environment: .development, owner: "_alice")
    static let caller = Caller(userRecordName: "_alice", role: .user)

    /// An engine over a fresh SQLite file, an executor of one thread admitting one call, and a
    /// runner on them.
    struct Setting {
        let directory: TemporaryDirectory
        let engine: Engine
        let executor: EngineExecutor
        let runner: LongLivedRunner

        init(timing: LongLivedRunner.Timing = LongLivedRunner.Timing()) throws {
            directory = try TemporaryDirectory(prefix: "stratus-runner")
            engine = try Engine(
                backend: try SQLiteBackend(
                    configuration: .init(location: .file(path: directory.path + "/store.sqlite"))))
            let logger = Logger(label: "test.runner")
            executor = EngineExecutor(threads: 1, maximumPending: 1, logger: logger)
            executor.start()
            runner = LongLivedRunner(engine: engine, executor: executor, logger: logger, timing: timing)
        }

        var journal: HostedJournal {
            get throws { try HostedJournal(engine: engine, owner: LongLivedRunnerTests.owner) }
        }

        /// Submits a modify saving record `r-<id>` as operation `id`, its lease held by `holder`
        /// until `expiry` (in the past: a killed process's).
        func submit(_ id: String, holder: String, expiry: Double) throws -> LongLivedLease {
            let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "r-\(id)"))
            record["title"] = "note"
            return try submit(
                id, CKModifyRecordsOperation(recordsToSave: [record], recordIDsToDelete: nil), holder: holder,
                expiry: expiry)
        }

        /// Submits `operation` as `id`, its lease held by `holder` until `expiry`.
        func submit(_ id: String, _ operation: CKDatabaseOperation, holder: String, expiry: Double) throws
            -> LongLivedLease
        {
            _ = try journal.submit(
                try LongLivedSubmission(encoding: operation), id: id,
                target: JournalTarget(namespace: LongLivedRunnerTests.owner, caller: LongLivedRunnerTests.caller),
                scope: .private, listed: true, holder: holder, leaseExpiry: expiry)
            return LongLivedLease(journal: try journal.number, operationID: id)
        }

        /// Submits `operation` as `id` to this runner and waits until it finished.
        func run(_ id: String, _ operation: CKDatabaseOperation) async throws {
            let lease = try submit(id, operation, holder: runner.processID, expiry: .greatestFiniteMagnitude)
            try await executor.runReserved(requestID: "test") { runner.start(lease) }
            #expect(try await finished(id, within: 60)?.state == .completed)
        }

        /// Waits up to `seconds` for operation `id` to leave the running state.
        func finished(_ id: String, within seconds: Double = 30) async throws -> HostedOperationStatus? {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if let status = try journal.status(id), status.state != .running { return status }
                try await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }

        /// The summaries of the callbacks of `id`.
        func lines(_ id: String) throws -> [String] {
            let context = try engine.database(namespace: LongLivedRunnerTests.owner, scope: .private)
            return try journal.events(id, from: 0, limit: 100).map {
                try LongLivedEventSummary.summary(
                    operationClass: "CKModifyRecordsOperation", bytes: $0.bytes, context: context)
            }
        }

        func close() async {
            try? await executor.shutdown()
            try? directory.remove()
        }
    }

    @Test func leaseRoundsGoOnWhileRequestsAreRefusedForLoad() async throws {
        let setting = try Setting()
        let lease = try setting.submit("op", holder: "killed", expiry: 1)
        // One call holds the only admission: the next request is refused with 503.
        let release = DispatchSemaphore(value: 0)
        let holding = Atomic<Bool>(false)
        let blocker = Task {
            try await setting.executor.run(requestID: "load") {
                holding.store(true, ordering: .relaxed)
                release.wait()
            }
        }
        while !holding.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(5)) }
        await #expect(throws: ServerError.self) { try await setting.executor.run(requestID: "client") {} }
        await setting.runner.round()
        let status = try await setting.finished("op")
        release.signal()
        _ = try await blocker.value
        #expect(status?.state == .completed, "the expired lease was claimed and its operation resumed under load")
        #expect(try setting.lines("op") == ["saved r-op", "finished"])
        #expect(
            try LongLivedLeases(engine: setting.engine).renew([lease], holder: setting.runner.processID, expiry: 0)
                == [lease], "a finished operation's lease is cleared")
        await setting.close()
    }

    @Test func aCrashLoopingOperationIsFinishedWithAnErrorAfterItsAttempts() async throws {
        let setting = try Setting()
        let lease = try setting.submit("op", holder: "killed", expiry: 1)
        // Five processes claimed it and died before finishing it.
        let leases = LongLivedLeases(engine: setting.engine)
        for attempt in 1...5 {
            let claimed = try leases.claimExpired(holder: "crashed-\(attempt)", now: 100, expiry: 2, limit: 1)
            #expect(claimed.claims[lease] == Int64(attempt))
        }
        await setting.runner.round()
        let status = try await setting.finished("op")
        #expect(status?.state == .completed)
        #expect(try setting.lines("op") == ["failed internalError"], "nothing was saved: the run never started")
        let event = try #require(try setting.journal.events("op", from: 0, limit: 1).first)
        #expect(String(decoding: event.bytes, as: UTF8.self).contains("abandoned after 5 attempts"))
        #expect(
            try leases.claimExpired(holder: "later", now: .greatestFiniteMagnitude, expiry: 0, limit: 10).leases
                .isEmpty, "its lease is gone")
        await setting.close()
    }

    @Test func theClaimScanReachesLeasesBeyondItsPage() async throws {
        var timing = LongLivedRunner.Timing()
        timing.claimPageSize = 2
        let setting = try Setting(timing: timing)
        // Four leases of live processes sort before the killed one's.
        for index in 0..<4 { _ = try setting.submit("a\(index)", holder: "alive", expiry: .greatestFiniteMagnitude) }
        _ = try setting.submit("z", holder: "killed", expiry: 1)
        for _ in 0..<3 { await setting.runner.round() }
        #expect(try await setting.finished("z")?.state == .completed, "claimed on the third round")
        await setting.close()
    }

    @Test func aWaitingEventsRequestIsWokenByTheRunsJournalWrites() async throws {
        var timing = LongLivedRunner.Timing()
        // Rereading only after 30 s: a signal must wake the waiter before.
        timing.eventsReread = .seconds(30)
        let setting = try Setting(timing: timing)
        let zone = LongLivedEndpointTests.zone
        try await setting.run("zone", CKModifyRecordZonesOperation(recordZonesToSave: [CKRecordZone(zoneID: zone)]))
        for batch in 0..<5 {
            try await setting.run("fill\(batch)", LongLivedEndpointTests.modify(400, prefix: "r\(batch)-"))
            #expect(try setting.journal.status("fill\(batch)")?.nextSequence == 401, "400 saved, then finished")
        }
        // A fetch journaling one record per page runs long after its first callback.
        let lease = try setting.submit(
            "fetch", LongLivedEndpointTests.zoneChanges(pageSize: 1), holder: setting.runner.processID,
            expiry: .greatestFiniteMagnitude)
        let signals = setting.runner.signals
        let subscription = signals.subscribe(lease)
        let started = ContinuousClock.now
        try await setting.executor.runReserved(requestID: "test") { setting.runner.start(lease) }
        await signals.wait(subscription, timeout: setting.runner.timing.eventsReread)
        signals.end(subscription)
        let status = try setting.journal.status("fetch")
        #expect(ContinuousClock.now - started < .seconds(20), "woken by the run, not by the 30 s reread")
        #expect(status?.state == .running, "woken by a callback before the last: \(String(describing: status))")
        #expect(status.map { $0.nextSequence > 0 } == true)
        #expect(signals.waiterCount == 0)
        #expect(try await setting.finished("fetch", within: 120)?.state == .completed)
        await setting.close()
    }
}
