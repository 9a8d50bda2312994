import Foundation
import Stratus
import StratusSQLite
import StratusTestSupport
import Synchronization
import Testing

/// Long-lived operations across a killed process (invariant 56, `Docs/LongLivedOperations.md`):
/// the probe's `long-lived-writer` (`LongLivedWriterCommand`) starts a long-lived operation on
/// a SQLite file and prints its ID once persisted and every callback after; the test kills it
/// with `SIGKILL` between persistence and completion, reopens the store in this process — a
/// second process — lists the ID, fetches the proxy, re-adds it, and checks that it receives
/// every callback the killed process received, in order, then the rest live, with no write done
/// twice (change tags, the zone's change token).
@Suite("SQLite long-lived operations across SIGKILL")
struct SQLiteLongLivedKillTests {
    static let containerIdentifier = "iCloud.stratus.long-lived-writer"

    @Test func aModifyKilledWhileDeliveringIsReplayedWithoutRewriting() async throws {
        let storage = try SQLiteFixtureStorage()
        defer { try? storage.destroy() }
        let killed = try await Self.launchAndKill([storage.path, "modify", "Z", "12", "5"], atLine: "HOLD")
        let printed = killed.lines.filter { $0.hasPrefix("SAVE") }
        #expect(printed.count == 5)

        let (backend, container) = try Self.reopen(storage)
        defer { try? backend.close() }
        let zoneID = CKRecordZone.ID(zoneName: "Z")
        let before = try await Self.zoneState(container.privateCloudDatabase, zoneID)
        #expect(before.tags.count == 12, "the modify committed before its callbacks were delivered")
        #expect(try await container.allLongLivedOperationIDs() == [killed.operationID])
        let proxy = try #require(try await container.longLivedOperation(for: killed.operationID))
        #expect(proxy is CKModifyRecordsOperation)

        let replay = try await Self.replay(proxy, on: container.privateCloudDatabase)
        #expect(Array(replay.prefix(printed.count)) == printed, "the killed process's callbacks come first, in order")
        #expect(replay.filter { $0.hasPrefix("SAVE") }.count == 12)
        #expect(replay.last == "FINAL ok")
        for (name, tag) in before.tags { #expect(replay.contains("SAVE \(name) \(tag)"), "\(name) keeps tag \(tag)") }
        let after = try await Self.zoneState(container.privateCloudDatabase, zoneID)
        #expect(after.token == before.token, "no write: the zone's change token is unchanged")
        #expect(after.tags == before.tags)
        #expect(try await container.allLongLivedOperationIDs().isEmpty)
    }

    @Test func aModifyKilledBeforeItsWorkIsResumedAndAppliedOnce() async throws {
        let storage = try SQLiteFixtureStorage()
        defer { try? storage.destroy() }
        let killed = try await Self.launchAndKill([storage.path, "modify-before-work", "Z", "12"], atLine: "HOLD")

        let (backend, container) = try Self.reopen(storage)
        defer { try? backend.close() }
        let zoneID = CKRecordZone.ID(zoneName: "Z")
        #expect(try await Self.zoneState(container.privateCloudDatabase, zoneID).tags.isEmpty)
        #expect(try await container.allLongLivedOperationIDs() == [killed.operationID])
        let proxy = try #require(try await container.longLivedOperation(for: killed.operationID))
        let replay = try await Self.replay(proxy, on: container.privateCloudDatabase)
        let state = try await Self.zoneState(container.privateCloudDatabase, zoneID)
        #expect(state.tags.count == 12)
        #expect(replay.count == 13 && replay.last == "FINAL ok")
        for (name, tag) in state.tags { #expect(replay.contains("SAVE \(name) \(tag)")) }
        #expect(try await container.allLongLivedOperationIDs().isEmpty)
    }

    @Test func aZoneChangesFetchKilledAfterTwoBatchesReplaysThenResumesLive() async throws {
        let storage = try SQLiteFixtureStorage()
        defer { try? storage.destroy() }
        let killed = try await Self.launchAndKill([storage.path, "zone-changes", "Z", "50", "2"], atLine: "HOLD")
        let printed = killed.lines.filter { $0.hasPrefix("CHANGED") || $0.hasPrefix("TOKENS") }
        #expect(printed.filter { $0.hasPrefix("CHANGED") }.count == 20)

        let (backend, container) = try Self.reopen(storage)
        defer { try? backend.close() }
        let zoneID = CKRecordZone.ID(zoneName: "Z")
        let late = (0..<5).map { index in
            let record = CKRecord(recordType: "Item", recordID: .init(recordName: "late\(index)", zoneID: zoneID))
            record["n"] = index
            return record
        }
        _ = try await container.privateCloudDatabase.modifyRecords(saving: late, deleting: [])
        let proxy = try #require(try await container.longLivedOperation(for: killed.operationID))
        #expect(proxy is CKFetchRecordZoneChangesOperation)
        let replay = try await Self.replay(proxy, on: container.privateCloudDatabase)
        #expect(Array(replay.prefix(printed.count)) == printed, "the killed process's callbacks come first, in order")
        let names = replay.filter { $0.hasPrefix("CHANGED") }.map { $0.split(separator: " ")[1] }
        #expect(names.count == 55, "50 records, then the 5 written after the kill, live")
        #expect(Set(names).count == 55, "no record delivered twice")
        #expect(replay.last == "FINAL ok")
        #expect(try await container.allLongLivedOperationIDs().isEmpty)
    }

    /// Kills a long-lived modify at random moments after it was persisted: whether the kill
    /// lands before, during or after its commit, the next process ends up with every record
    /// saved exactly once and delivers results that match the store.
    @Test func aModifyKilledAtRandomMomentsIsAppliedExactlyOnce() async throws {
        let storage = try SQLiteFixtureStorage()
        defer { try? storage.destroy() }
        var generator = SeededGenerator(seed: 0x10_C6_11_FE)
        var outcomes: [String: Int] = [:]
        for round in 1...8 {
            let zone = "R\(round)"
            let delay = Duration.microseconds(Int.random(in: 0...6_000, using: &generator))
            let killed = try await Self.launchAndKill(
                [storage.path, "modify", zone, "40"], atLine: "PERSISTED", delay: delay, mayFinish: true)
            let (backend, container) = try Self.reopen(storage)
            let zoneID = CKRecordZone.ID(zoneName: zone)
            let listed = try await container.allLongLivedOperationIDs().contains(killed.operationID)
            let before = try await Self.zoneState(container.privateCloudDatabase, zoneID)
            if listed {
                let proxy = try #require(try await container.longLivedOperation(for: killed.operationID))
                let replay = try await Self.replay(proxy, on: container.privateCloudDatabase)
                let after = try await Self.zoneState(container.privateCloudDatabase, zoneID)
                #expect(after.tags.count == 40, "round \(round)")
                #expect(replay.last == "FINAL ok", "round \(round): \(replay.suffix(2))")
                for (name, tag) in after.tags { #expect(replay.contains("SAVE \(name) \(tag)"), "round \(round)") }
                if before.tags.isEmpty {
                    outcomes["killed before the commit, resumed", default: 0] += 1
                } else {
                    #expect(after.token == before.token, "round \(round): the replay wrote nothing")
                    outcomes["killed after the commit, replayed", default: 0] += 1
                }
            } else {
                #expect(before.tags.count == 40, "round \(round): delivered before the kill, so applied")
                outcomes["delivered before the kill", default: 0] += 1
            }
            #expect(try await container.allLongLivedOperationIDs().isEmpty, "round \(round)")
            try backend.close()
        }
        print("SQLiteLongLivedKillTests: \(outcomes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" })")
    }

    // MARK: Support

    /// What a probe printed before it was killed.
    struct Killed {
        var operationID: String
        var lines: [String]
    }

    /// Runs the probe's `long-lived-writer` with `arguments` and kills it at the first line
    /// starting with `linePrefix` (after `delay`); fails if it ends by itself first, unless
    /// `mayFinish` (the kill came too late: the operation completed and the writer exited). The
    /// probe's reader thread kills it, so the kill point does not wait for a busy concurrency
    /// pool (in a parallel run it waited minutes, and the held writer gave up first).
    static func launchAndKill(
        _ arguments: [String], atLine linePrefix: String, delay: Duration = .zero, mayFinish: Bool = false
    ) async throws -> Killed {
        let microseconds =
            Int(delay.components.seconds) * 1_000_000 + Int(delay.components.attoseconds / 1_000_000_000_000)
        let probe = try KillableProbe(
            arguments: ["long-lived-writer"] + arguments,
            killPoint: .init(after: 1, linesStartingWith: linePrefix, delayMicroseconds: microseconds))
        defer { probe.kill() }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(90))
            probe.kill()
        }
        defer { watchdog.cancel() }
        var lines: [String] = []
        for await line in probe.lines { lines.append(line) }
        let killed = probe.killedAtKillPoint
        let exit = await probe.exit()
        let ended = lines.last ?? "nothing"
        #expect(killed, "the writer ended before its kill point (last line: \(ended)): \(probe.errorOutput)")
        if !(mayFinish && exit.reason == .exit && exit.status == 0) {
            #expect(exit.reason == .uncaughtSignal && exit.status == SIGKILL, "exit \(exit)")
        }
        let id = try #require(lines.first { $0.hasPrefix("PERSISTED ") }.map { String($0.dropFirst(10)) })
        return Killed(operationID: id, lines: lines)
    }

    /// The second process: the store reopened, with a container of the writer's identifier.
    static func reopen(_ storage: SQLiteFixtureStorage) throws -> (SQLiteBackend, CKContainer) {
        let backend = try storage.openSQLite()
        return (backend, CKContainer(identifier: containerIdentifier, backend: backend))
    }

    /// Runs `operation` on `database` and returns its callbacks as the probe prints them.
    static func replay(_ operation: CKOperation, on database: CKDatabase) async throws -> [String] {
        let lines = Mutex<[String]>([])
        let append: @Sendable (String) -> Void = { line in lines.withLock { $0.append(line) } }
        switch operation {
        case let modify as CKModifyRecordsOperation:
            modify.perRecordSaveBlock = { id, result in
                append("SAVE \(id.recordName) \((try? result.get())?.recordChangeTag ?? "error")")
            }
            modify.modifyRecordsResultBlock = { append("FINAL \(describe($0))") }
        case let fetch as CKFetchRecordZoneChangesOperation:
            fetch.recordWasChangedBlock = { id, result in
                append("CHANGED \(id.recordName) \((try? result.get())?.recordChangeTag ?? "error")")
            }
            fetch.recordZoneChangeTokensUpdatedBlock = { _, token, _ in
                append("TOKENS \(token.map { "\($0)" } ?? "nil")")
            }
            fetch.fetchRecordZoneChangesResultBlock = { append("FINAL \(describe($0))") }
        default:
            Issue.record("unexpected proxy \(type(of: operation))")
        }
        let databaseOperation = try #require(operation as? CKDatabaseOperation)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            databaseOperation.completionBlock = { continuation.resume() }
            database.add(databaseOperation)
        }
        return lines.withLock { $0 }
    }

    /// The zone's records with their change tags, and the zone's current change token, from a
    /// nil-token fetch: any write to the zone changes the token.
    static func zoneState(_ database: CKDatabase, _ zoneID: CKRecordZone.ID) async throws
        -> (tags: [String: String], token: String)
    {
        var tags: [String: String] = [:]
        var token: CKServerChangeToken?
        var moreComing = true
        while moreComing {
            let changes = try await database.recordZoneChanges(inZoneWith: zoneID, since: token)
            for (id, result) in changes.modificationResultsByID {
                tags[id.recordName] = try result.get().record.recordChangeTag ?? "-"
            }
            token = changes.changeToken
            moreComing = changes.moreComing
        }
        return (tags, token.map { "\($0)" } ?? "nil")
    }

    static func describe(_ result: Result<Void, any Error>) -> String {
        switch result {
        case .success: return "ok"
        case .failure(let error): return "\(error)"
        }
    }
}
