import Dispatch
import Foundation
import Stratus
import StratusBackend
import StratusInMemory
import StratusTestSupport
import Synchronization
import Testing

/// The zone-changes read-ahead of decision 0009 under attack: a cancelled fetch whose
/// read-ahead is still reading, writes that land after the next batch was read ahead, per-zone
/// limits and desired keys over several zones, tokens handed out from read-ahead batches, and
/// long-lived fetches (whose journal writes must not throw every read-ahead away).
///
/// Reads go through a ``WrappingBackend`` whose read hook counts them and can hold one back, so
/// the tests order the operation thread and the read-ahead thread with semaphores.
@Suite struct ReadAheadAdversarialTests {
    /// Counts the reads of a backend since ``arm()``, and holds back the one numbered
    /// ``holdOrdinal`` until ``release()`` (or a second, as a safety net that only ever makes a
    /// passing run slower).
    final class ReadProbe: Sendable {
        private struct State {
            var armed = false
            var started = 0
            var inFlight = 0
            var finished = 0
            var ended = false
            var startedAfterEnd = 0
        }
        private let state = Mutex(State())
        /// The read (1-based, counted from ``arm()``) held back; 0 holds none.
        let holdOrdinal: Int
        private let gate = DispatchSemaphore(value: 0)
        /// Signalled when the held read has run on the base backend.
        let heldReadDone = DispatchSemaphore(value: 0)

        init(holdOrdinal: Int = 0) {
            self.holdOrdinal = holdOrdinal
        }

        func arm() { state.withLock { $0.armed = true } }
        func release() { gate.signal() }
        /// Reads begun since ``arm()``.
        var started: Int { state.withLock { $0.started } }
        /// Reads begun since ``arm()`` and not ended yet.
        var inFlight: Int { state.withLock { $0.inFlight } }
        /// Records that the operation under test delivered its final callback; returns how many
        /// reads were still running then.
        func operationEnded() -> Int {
            state.withLock {
                $0.ended = true
                return $0.inFlight
            }
        }
        /// Reads begun after ``operationEnded()``.
        var startedAfterEnd: Int { state.withLock { $0.startedAfterEnd } }

        var hooks: BackendHooks {
            var hooks = BackendHooks()
            hooks.read = { [self] base, body in
                let ordinal = state.withLock { state -> Int in
                    guard state.armed else { return 0 }
                    if state.ended { state.startedAfterEnd += 1 }
                    state.started += 1
                    state.inFlight += 1
                    return state.started
                }
                defer {
                    if ordinal > 0 {
                        state.withLock {
                            $0.inFlight -= 1
                            $0.finished += 1
                        }
                    }
                }
                if ordinal > 0 && ordinal == holdOrdinal {
                    _ = gate.wait(timeout: .now() + 1)
                    defer { heldReadDone.signal() }
                    try base.read(body)
                } else {
                    try base.read(body)
                }
            }
            return hooks
        }
    }

    /// A container over a fresh in-memory store read through `probe`.
    static func container(_ probe: ReadProbe, store: InMemoryStore = InMemoryStore()) -> CKContainer {
        CKContainer(
            identifier: "iCloud.test.readAhead",
            backend: WrappingBackend(base: InMemoryBackend(store: store), hooks: probe.hooks))
    }

    /// Zone `name` holding records "r00"… with fields `index`, `a` and `b`.
    static func zone(_ name: String, records count: Int, in database: CKDatabase) async throws -> CKRecordZone.ID {
        let zoneID = try await OpsTestKit.makeZone(name, in: database)
        try await OpsTestKit.save(
            (0..<count).map { i in
                let record = CKRecord(
                    recordType: "Note", recordID: CKRecord.ID(recordName: String(format: "r%02d", i), zoneID: zoneID))
                record["index"] = i
                record["a"] = "a\(i)"
                record["b"] = "b\(i)"
                return record
            }, in: database)
        return zoneID
    }

    // MARK: The end of the operation

    /// Cancelled from its first record callback while the next batch is being read ahead, a
    /// fetch ends that read before its final CloudKit callback: an app may close the backend
    /// from `fetchRecordZoneChangesResultBlock` (decision 0009, 3: "no read of an operation
    /// outlives it"). The read ahead is held back until the final callback ran (or a second
    /// passed), so without the wait the final callback deterministically finds it running, or
    /// it begins after the final callback.
    @Test func aCancelledFetchEndsItsReadAheadBeforeItsFinalCallback() async throws {
        // Read 1 is the first batch, read 2 the read-ahead of the second.
        let probe = ReadProbe(holdOrdinal: 2)
        let database = Self.container(probe).privateCloudDatabase
        let zoneID = try await Self.zone("Z", records: 30, in: database)
        let operation = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: .init(resultsLimit: 5)])
        let delivered = OpsLog<String>()
        operation.recordWasChangedBlock = { [unowned operation] id, _ in
            delivered.append(id.recordName)
            operation.cancel()
        }
        let readsAtTheEnd = OpsLog<Int>()
        let final = OpsLog<Result<Void, any Error>>()
        operation.fetchRecordZoneChangesResultBlock = { result in
            readsAtTheEnd.append(probe.operationEnded())
            final.append(result)
            probe.release()
        }
        probe.arm()
        await OpsTestKit.run(operation, on: database)

        #expect(delivered.all == ["r00"])
        #expect(OpsTestKit.code(final.all.first) == .operationCancelled)
        #expect(probe.started == 2, "the first batch and the read-ahead of the second")
        #expect(readsAtTheEnd.all == [0], "reads still running when the final callback ran")
        #expect(probe.startedAfterEnd == 0, "reads begun after the final callback")
    }

    // MARK: Staleness

    /// A write made from a callback, through the same container, to a record the read-ahead has
    /// already read (the test waits for that read to finish first) is seen by the rest of the
    /// fetch: the stale read-ahead batch is dropped and the record arrives once, written.
    ///
    /// The write goes through the fetch's own container, or through another `CKContainer` over
    /// the same backend object (as `CKContainer(identifier:)` makes one per call): both are
    /// writes of this process through that backend (``WriteGeneration``).
    @Test(arguments: [false, true])
    func aWriteAfterTheReadAheadReadIsSeenByTheNextBatch(throughAnotherContainer: Bool) async throws {
        let probe = ReadProbe(holdOrdinal: 2)
        let backend = WrappingBackend(base: InMemoryBackend(store: InMemoryStore()), hooks: probe.hooks)
        let database = CKContainer(identifier: "iCloud.test.readAhead", backend: backend).privateCloudDatabase
        let writer =
            throughAnotherContainer
            ? CKContainer(identifier: "iCloud.test.readAhead", backend: backend).privateCloudDatabase : database
        let zoneID = try await Self.zone("Z", records: 12, in: database)
        let operation = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: .init(resultsLimit: 5)])
        let values = OpsLog<String>()
        let wrote = Atomic<Bool>(false)
        operation.recordWasChangedBlock = { id, result in
            let record = try? result.get()
            values.append("\(id.recordName)=\(record?["a"] as? String ?? "?")")
            guard wrote.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
            else { return }
            // The read-ahead of r05…r09 runs to its end before r07 changes.
            probe.release()
            probe.heldReadDone.wait()
            let changed = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "r07", zoneID: zoneID))
            changed["a"] = "written"
            let saved = CKModifyRecordsOperation(recordsToSave: [changed])
            saved.savePolicy = .changedKeys
            let done = DispatchSemaphore(value: 0)
            saved.modifyRecordsResultBlock = { _ in done.signal() }
            writer.add(saved)
            done.wait()
        }
        let final = OpsLog<Result<Void, any Error>>()
        operation.fetchRecordZoneChangesResultBlock = { final.append($0) }
        probe.arm()
        await OpsTestKit.run(operation, on: database)

        #expect(OpsTestKit.code(final.all.first) == nil)
        let r07 = values.all.filter { $0.hasPrefix("r07=") }
        #expect(r07 == ["r07=written"], "r07's deliveries")
        #expect(Set(values.all.map { $0.prefix(3) }).count == 12)
    }

    // MARK: Several zones

    /// Several zones, each with its own limit and desired keys: every batch, read ahead or not,
    /// honours its zone's settings; every record arrives once; each zone reports a token per
    /// batch but its last, in order, and ends with a success.
    @Test func perZoneLimitsAndDesiredKeysHoldForReadAheadBatches() async throws {
        let probe = ReadProbe()
        let database = Self.container(probe).privateCloudDatabase
        let first = try await Self.zone("First", records: 11, in: database)
        let second = try await Self.zone("Second", records: 7, in: database)
        let third = try await Self.zone("Third", records: 4, in: database)
        let operation = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [first, second, third],
            configurationsByRecordZoneID: [
                first: .init(resultsLimit: 3, desiredKeys: ["a"]),
                second: .init(resultsLimit: 2, desiredKeys: []),
                third: .init(resultsLimit: 10),
            ])
        let events = OpsLog<String>()
        operation.recordWasChangedBlock = { id, result in
            let record = try? result.get()
            let keys = record.map { $0.allKeys().sorted().joined(separator: ",") } ?? "error"
            events.append("\(id.zoneID.zoneName) \(id.recordName) [\(keys)]")
        }
        operation.recordZoneChangeTokensUpdatedBlock = { zoneID, _, _ in events.append("token \(zoneID.zoneName)") }
        operation.recordZoneFetchResultBlock = { zoneID, result in
            events.append("end \(zoneID.zoneName) \((try? result.get()) != nil)")
        }
        probe.arm()
        await OpsTestKit.run(operation, on: database)

        var expected: [String] = []
        func expect(_ zone: String, _ count: Int, limit: Int, keys: String) {
            for i in 0..<count {
                if i > 0 && i % limit == 0 { expected.append("token \(zone)") }
                expected.append("\(zone) \(String(format: "r%02d", i)) [\(keys)]")
            }
            expected.append("end \(zone) true")
        }
        expect("First", 11, limit: 3, keys: "a")
        expect("Second", 7, limit: 2, keys: "")
        expect("Third", 4, limit: 10, keys: "a,b,index")
        #expect(events.all == expected)
    }

    // MARK: Tokens

    /// Every token the fetch hands out (from batches read ahead) resumes exactly after what was
    /// delivered before it: a fetch from it returns the rest of the zone, nothing twice.
    @Test func tokensFromReadAheadBatchesResumeWhereTheyStand() async throws {
        let probe = ReadProbe()
        let database = Self.container(probe).privateCloudDatabase
        let zoneID = try await Self.zone("Z", records: 17, in: database)
        let operation = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: .init(resultsLimit: 4)])
        let delivered = OpsLog<String>()
        let tokens = OpsLog<(CKServerChangeToken, Int)>()
        operation.recordWasChangedBlock = { id, _ in delivered.append(id.recordName) }
        operation.recordZoneChangeTokensUpdatedBlock = { _, token, _ in
            if let token { tokens.append((token, delivered.all.count)) }
        }
        await OpsTestKit.run(operation, on: database)
        let all = delivered.all
        #expect(all.count == 17 && Set(all).count == 17)
        #expect(tokens.all.map(\.1) == [4, 8, 12, 16])

        for (token, count) in tokens.all {
            let rest = OpsLog<String>()
            let resume = CKFetchRecordZoneChangesOperation(
                recordZoneIDs: [zoneID],
                configurationsByRecordZoneID: [zoneID: .init(previousServerChangeToken: token, resultsLimit: 3)])
            resume.recordWasChangedBlock = { id, _ in rest.append(id.recordName) }
            await OpsTestKit.run(resume, on: database)
            #expect(rest.all == Array(all[count...]), "from the token after \(count) records")
        }
    }

    // MARK: Long-lived fetches

    /// A long-lived fetch reads each batch once, like an ordinary one: journaling a batch (a
    /// write of the journal only) does not make the batch read ahead meanwhile stale, so it is
    /// taken, not read a second time (decision 0009, 4).
    @Test func aLongLivedFetchReadsEachBatchOnce() async throws {
        func reads(longLived: Bool) async throws -> Int {
            let probe = ReadProbe()
            let database = Self.container(probe).privateCloudDatabase
            let zoneID = try await Self.zone("Z", records: 30, in: database)
            let operation = CKFetchRecordZoneChangesOperation(
                recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: .init(resultsLimit: 5)])
            operation.configuration.isLongLived = longLived
            let delivered = OpsLog<String>()
            operation.recordWasChangedBlock = { id, _ in delivered.append(id.recordName) }
            probe.arm()
            await OpsTestKit.run(operation, on: database)
            #expect(delivered.all.count == 30 && Set(delivered.all).count == 30)
            return probe.started
        }
        let ordinary = try await reads(longLived: false)
        let longLived = try await reads(longLived: true)
        #expect(ordinary >= 6)
        #expect(
            longLived == ordinary, "reads of a long-lived fetch (\(longLived)) and of an ordinary one (\(ordinary))")
    }
}
