import Foundation
import Stratus
import StratusSQLite
import StratusTestSupport
import Synchronization
import Testing

/// A writer process killed with `SIGKILL` at random moments, again and again, on one SQLite
/// file (default durability, `synchronous=FULL`): after every kill the store must hold every
/// acknowledged batch, no part of an atomic batch without the rest, and every change token
/// the writer was given must still resume without gaps.
///
/// The writer is the probe's `crash-writer` subcommand (`CrashWriterCommand`), which reports
/// each batch before (`BEGIN`) and after (`ACK`) it is saved, and change tokens (`TOKEN`).
/// The test keeps the acknowledged state from those lines (``CrashLedger``) and, after each
/// kill, compares it with the store reopened in the test process.
@Suite("SQLite crash recovery")
struct SQLiteCrashTests {
    /// How many times the writer is launched and killed.
    static let rounds = 8
    /// The zone the writer writes.
    static let zoneName = "Crash"
    /// The container the writer writes (as in `CrashWriterCommand.containerIdentifier`).
    static let containerIdentifier = "iCloud.stratus.crash-writer"
    /// A round that has not seen its kill point after this long fails.
    static let roundTimeout: Duration = .seconds(20)

    /// The test's seed: `STRATUS_CRASH_SEED` if set (to replay a failure), else fixed. It
    /// chooses the kill points and the writer's seeds.
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["STRATUS_CRASH_SEED"].flatMap { UInt64($0) } ?? 0xC4A5_11ED
    }

    @Test func killedWriterKeepsAcknowledgedBatchesAtomicityAndTokens() async throws {
        let seed = Self.seed
        var generator = SeededGenerator(seed: seed)
        let storage = try SQLiteFixtureStorage()
        defer { try? storage.destroy() }
        let zoneID = CKRecordZone.ID(zoneName: Self.zoneName, ownerName: CKCurrentUserDefaultName)
        var ledger = CrashLedger()
        var summaries: [String] = []
        var outcomes: [String: Int] = [:]
        let started = ContinuousClock.now

        for round in 1...Self.rounds {
            // Kill after a random number of acknowledgements, plus a random few milliseconds,
            // so that the kill lands anywhere in a batch: before, during or after its commit.
            let killAfterAcks = Int.random(in: 1...40, using: &generator)
            let extraDelay = Int.random(in: 0...5_000, using: &generator)
            let writerSeed = seed &+ UInt64(round) &* 0x9E37_79B9_7F4A_7C15
            let roundStart = ContinuousClock.now
            let probe = try KillableProbe(
                arguments: ["crash-writer", storage.path, Self.zoneName, String(writerSeed)])
            // Never leave the writer running, whatever happens to this round.
            defer { probe.kill() }
            let watchdog = Task {
                try await Task.sleep(for: Self.roundTimeout)
                probe.kill()
            }
            var acks = 0
            var killed = false
            for await line in probe.lines {
                ledger.consume(line, round: round)
                guard !killed, line.hasPrefix("ACK ") else { continue }
                acks += 1
                if acks == killAfterAcks {
                    try await Task.sleep(for: .microseconds(extraDelay))
                    probe.kill()
                    killed = true
                }
            }
            watchdog.cancel()
            let exit = await probe.exit()
            let cut = probe.unterminatedLine
            if !killed || exit.reason != .uncaughtSignal || exit.status != SIGKILL {
                let message =
                    "round \(round) (seed \(seed)): the writer was not killed at its kill point: "
                    + "\(acks) of \(killAfterAcks) ACKs, exit \(exit), standard error: \(probe.errorOutput)"
                Issue.record(Comment(rawValue: message))
            }

            let outcome = try await Self.verify(storage: storage, zoneID: zoneID, ledger: &ledger, round: round)
            outcomes[outcome.kind, default: 0] += 1
            let milliseconds = (ContinuousClock.now - roundStart) / .milliseconds(1)
            summaries.append(
                "round \(round): killed after \(acks) ACKs + \(extraDelay) µs, \(outcome)"
                    + (cut.isEmpty ? "" : ", a line cut short (\(cut.count) bytes)")
                    + ", \(ledger.acknowledged.count) records, \(ledger.tokens.count) tokens checked, \(Int(milliseconds)) ms"
            )
        }

        for problem in ledger.problems { Issue.record("seed \(seed): \(problem)") }
        print(
            "SQLiteCrashTests (seed \(seed)): \(ledger.batchesBegun) batches begun, \(ledger.batchesAcknowledged) acknowledged, "
                + "\(Self.rounds) kills (\(outcomes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))) "
                + "in \(Int((ContinuousClock.now - started) / .milliseconds(1))) ms\n  "
                + summaries.joined(separator: "\n  "))
        #expect(ledger.batchesAcknowledged >= Self.rounds)
    }

    /// What the store showed of the batch in flight at a kill.
    enum InFlight: CustomStringConvertible {
        /// No batch was between `BEGIN` and `ACK`.
        case none
        /// Batch `n` was in flight and is absent: nothing of it was committed.
        case lost(Int64)
        /// Batch `n` was in flight and is present, all of it.
        case committed(Int64)
        /// The store matched neither.
        case inconsistent

        /// The case's name, for counting.
        var kind: String {
            switch self {
            case .none: return "between batches"
            case .lost: return "in flight, lost"
            case .committed: return "in flight, committed"
            case .inconsistent: return "inconsistent"
            }
        }

        var description: String {
            switch self {
            case .none: return "no batch in flight"
            case .lost(let n): return "batch \(n) in flight, not committed"
            case .committed(let n): return "batch \(n) in flight, committed in full"
            case .inconsistent: return "INCONSISTENT"
            }
        }
    }

    /// Reopens the store in this process and checks it against the ledger: (a) it equals
    /// the acknowledged state, or that state with the in-flight batch applied in full; (b) the
    /// in-flight batch's marker is on all of its records or none; (c) a change fetch from every
    /// token so far succeeds and, folded onto the state known at the token, gives the store's
    /// state. Then the ledger adopts the store's state.
    static func verify(
        storage: SQLiteFixtureStorage, zoneID: CKRecordZone.ID, ledger: inout CrashLedger, round: Int
    ) async throws -> InFlight {
        let backend = try storage.openSQLite()
        defer { try? backend.close() }
        let database = CKContainer(identifier: containerIdentifier, backend: backend).privateCloudDatabase

        let full = await ZoneChangeFetch.fetch(database, zoneID: zoneID, since: nil)
        if let error = full.error {
            ledger.problems.append("round \(round): the nil-token fetch after the kill failed: \(error)")
            return .inconsistent
        }
        var store: [String: RecordSnapshot] = [:]
        full.apply(to: &store)
        ledger.problems += full.failures.map { "round \(round): nil-token fetch: \($0)" }
        if !full.repeatedNames.isEmpty {
            ledger.problems.append("round \(round): the nil-token fetch delivered \(full.repeatedNames) twice")
        }

        // (a) The acknowledged state, or the acknowledged state plus all of the batch in flight.
        var outcome = InFlight.inconsistent
        if store == ledger.acknowledged {
            outcome = ledger.pending.map { .lost($0.number) } ?? .none
        } else if let pending = ledger.pending {
            // The new tags are not known (there was no ACK): take the store's, and check
            // below that they changed.
            var expected = ledger.acknowledged
            for (name, fields) in pending.saves {
                expected[name] = RecordSnapshot(changeTag: store[name]?.changeTag ?? "(missing)", fields: fields)
            }
            for name in pending.deletes { expected[name] = nil }
            if store == expected {
                outcome = .committed(pending.number)
                for name in pending.saves.keys.sorted()
                where ledger.acknowledged[name]?.changeTag == store[name]?.changeTag {
                    ledger.problems.append(
                        "round \(round): \(name) was saved by batch \(pending.number) but kept its change tag \(store[name]!.changeTag)"
                    )
                }
            } else {
                ledger.problems.append(
                    "round \(round): the store is neither the acknowledged state nor it plus all of batch \(pending.number); "
                        + "vs acknowledged: \(RecordSnapshot.differences(store, expected: ledger.acknowledged)); "
                        + "vs committed: \(RecordSnapshot.differences(store, expected: expected))")
            }
        } else {
            ledger.problems.append(
                "round \(round): no batch was in flight, but the store differs from the acknowledged state: "
                    + "\(RecordSnapshot.differences(store, expected: ledger.acknowledged))")
        }

        // (b) The in-flight batch's marker: on all of its saved records, or on none.
        if let pending = ledger.pending {
            let marked = store.values.filter { $0.fields["batch"] == "i:\(pending.number)" }.count
            if marked != 0 && marked != pending.saves.count {
                ledger.problems.append(
                    "round \(round): batch \(pending.number) is partly visible: \(marked) of its \(pending.saves.count) records"
                )
            }
        }
        let newest = ledger.pending?.number ?? ledger.lastAcknowledged
        let later = store.filter { (Int64($0.value.fields["batch"]?.dropFirst(2) ?? "") ?? 0) > newest }
        if !later.isEmpty {
            ledger.problems.append("round \(round): records of batches never begun: \(later.keys.sorted())")
        }

        // (c) Every token so far resumes: its changes, folded onto what was known at it, give
        // the store's state. A small page size makes the fetch use intermediate tokens too.
        for (index, entry) in ledger.tokens.enumerated() {
            let fetch = await ZoneChangeFetch.fetch(
                database, zoneID: zoneID, since: entry.token, resultsLimit: 13)
            if let error = fetch.error {
                ledger.problems.append("round \(round): token \(index) (round \(entry.round)) failed: \(error)")
                continue
            }
            var mirror = entry.state
            fetch.apply(to: &mirror)
            let differences = RecordSnapshot.differences(mirror, expected: store)
            if !differences.isEmpty {
                ledger.problems.append(
                    "round \(round): token \(index) (round \(entry.round)) does not resume without gaps: \(differences)"
                )
            }
        }

        ledger.adopt(store)
        return outcome
    }
}

/// The writer's acknowledged history, as its output lines tell it.
struct CrashLedger {
    /// `BEGIN` payload (as `CrashWriterCommand.Begin`).
    struct Begin: Decodable {
        var saves: [String: [String: String]]
        var deletes: [String]
    }

    /// `ACK` payload (as `CrashWriterCommand.Ack`).
    struct Ack: Decodable {
        var saved: [String: String]
        var deleted: [String]
    }

    /// The batch announced and not (yet) acknowledged.
    struct Pending {
        var number: Int64
        var saves: [String: [String: String]]
        var deletes: [String]
    }

    /// A token the writer printed, and the acknowledged state when it printed it.
    struct TokenEntry {
        var token: CKServerChangeToken
        var state: [String: RecordSnapshot]
        var round: Int
    }

    /// The zone as the acknowledged batches left it.
    var acknowledged: [String: RecordSnapshot] = [:]
    /// The number of the last acknowledged (or found committed) batch.
    var lastAcknowledged: Int64 = 0
    /// The batch in flight, if any.
    var pending: Pending?
    /// Every token printed so far.
    var tokens: [TokenEntry] = []
    /// Everything wrong so far.
    var problems: [String] = []
    var batchesBegun = 0
    var batchesAcknowledged = 0

    /// Takes one complete output line of the writer.
    mutating func consume(_ line: String, round: Int) {
        let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
        let decoder = JSONDecoder()
        switch (parts.first, parts.count) {
        case ("BEGIN", 3):
            guard let number = Int64(parts[1]), let begin = try? decoder.decode(Begin.self, from: Data(parts[2].utf8))
            else {
                problems.append("round \(round): unreadable line \(line.prefix(200))")
                return
            }
            if let pending {
                problems.append(
                    "round \(round): batch \(number) begun while batch \(pending.number) was not acknowledged")
            }
            if number != lastAcknowledged + 1 {
                problems.append("round \(round): batch \(number) begun after batch \(lastAcknowledged)")
            }
            batchesBegun += 1
            pending = Pending(number: number, saves: begin.saves, deletes: begin.deletes)
        case ("ACK", 3):
            guard let number = Int64(parts[1]), let ack = try? decoder.decode(Ack.self, from: Data(parts[2].utf8))
            else {
                problems.append("round \(round): unreadable line \(line.prefix(200))")
                return
            }
            guard let begun = pending, begun.number == number else {
                problems.append("round \(round): ACK \(number) without its BEGIN")
                return
            }
            if Set(ack.saved.keys) != Set(begun.saves.keys) || Set(ack.deleted) != Set(begun.deletes) {
                problems.append("round \(round): ACK \(number) does not match its BEGIN")
            }
            for (name, tag) in ack.saved {
                acknowledged[name] = RecordSnapshot(changeTag: tag, fields: begun.saves[name] ?? [:])
            }
            for name in ack.deleted { acknowledged[name] = nil }
            lastAcknowledged = number
            batchesAcknowledged += 1
            pending = nil
        case ("TOKEN", 3):
            guard let archive = Data(base64Encoded: parts[1]),
                let token = try? NSKeyedUnarchiver.unarchivedObject(ofClass: CKServerChangeToken.self, from: archive),
                let tags = try? decoder.decode([String: String].self, from: Data(parts[2].utf8))
            else {
                problems.append("round \(round): unreadable line \(line.prefix(200))")
                return
            }
            if pending != nil {
                problems.append("round \(round): a token printed while a batch was in flight")
            }
            // The writer's mirror, built by its own change fetches, must be what was
            // acknowledged.
            if tags != acknowledged.mapValues(\.changeTag) {
                problems.append(
                    "round \(round): the writer's change-fetch mirror differs from the acknowledged state: "
                        + "\(RecordSnapshot.differences(Self.tagsOnly(tags), expected: Self.tagsOnly(acknowledged.mapValues(\.changeTag))))"
                )
            }
            tokens.append(TokenEntry(token: token, state: acknowledged, round: round))
        default:
            problems.append("round \(round): unexpected line \(line.prefix(200))")
        }
    }

    /// Snapshots with `tags` and no fields, to compare change tags alone.
    static func tagsOnly(_ tags: [String: String]) -> [String: RecordSnapshot] {
        tags.mapValues { RecordSnapshot(changeTag: $0, fields: [:]) }
    }

    /// Takes the store's state after a kill as the acknowledged state (it was checked to be
    /// the acknowledged state, or it plus the batch in flight).
    mutating func adopt(_ store: [String: RecordSnapshot]) {
        acknowledged = store
        lastAcknowledged = store.values.compactMap { Int64($0.fields["batch"]?.dropFirst(2) ?? "") }.max() ?? 0
        pending = nil
    }
}

/// A probe process whose standard output is read line by line while it runs, and which can
/// be killed with `SIGKILL`.
final class KillableProbe: @unchecked Sendable {
    private let process = Process()
    private let status: Task<(reason: Process.TerminationReason, status: Int32), Never>
    private let state = Mutex<(unterminated: String, errorOutput: String)>(("", ""))

    /// The complete lines of standard output, as they arrive; it ends when the process has
    /// closed its output (exited or was killed).
    let lines: AsyncStream<String>

    /// Launches the probe with `arguments`.
    init(arguments: [String]) throws {
        process.executableURL = try TestProbe.executable()
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let (stream, continuation) = AsyncStream<(Process.TerminationReason, Int32)>.makeStream()
        process.terminationHandler = { process in
            continuation.yield((process.terminationReason, process.terminationStatus))
            continuation.finish()
        }
        status = Task {
            var last: (reason: Process.TerminationReason, status: Int32) = (.exit, -1)
            for await value in stream { last = value }
            return last
        }
        let (lines, lineContinuation) = AsyncStream<String>.makeStream(bufferingPolicy: .unbounded)
        self.lines = lines
        try process.run()

        // Readers on threads of their own: blocking reads must not occupy Swift
        // concurrency's pool.
        let outputHandle = output.fileHandleForReading
        Thread { [self] in
            var pending: [UInt8] = []
            while true {
                let chunk = outputHandle.availableData
                if chunk.isEmpty { break }
                pending += chunk
                var start = 0
                while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    lineContinuation.yield(String(decoding: pending[start..<newline], as: UTF8.self))
                    start = newline + 1
                }
                pending.removeFirst(start)
            }
            // What the kill cut short: written, but never finished with a newline.
            state.withLock { $0.unterminated = String(decoding: pending, as: UTF8.self) }
            lineContinuation.finish()
        }.start()
        let errorHandle = errors.fileHandleForReading
        Thread { [self] in
            let data = errorHandle.readDataToEndOfFile()
            state.withLock { $0.errorOutput = String(decoding: data, as: UTF8.self) }
        }.start()
    }

    /// Sends `SIGKILL` (harmless once the process has exited).
    func kill() {
        if process.isRunning { _ = Foundation.kill(process.processIdentifier, SIGKILL) }
    }

    /// Waits for the process to end; returns why and its status (the signal, if killed).
    func exit() async -> (reason: Process.TerminationReason, status: Int32) {
        await status.value
    }

    /// The output after the last newline (a line the kill cut short); read after ``lines``
    /// ended.
    var unterminatedLine: String { state.withLock { $0.unterminated } }

    /// Standard error so far.
    var errorOutput: String { state.withLock { $0.errorOutput } }
}
