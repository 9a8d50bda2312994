import Foundation
import Stratus
public import StratusBackend

/// A writer process killed with `SIGKILL` at random moments, again and again, on one store:
/// after every kill the store must hold every acknowledged batch, no part of an atomic batch
/// without the rest, and every change token the writer was given must still resume without
/// gaps. For any backend the probe's `crash-writer` can open (a SQLite file path, or an
/// `lmdb:` URL); `SQLiteCrashTests` and `LMDBCrashTests` run it.
///
/// The writer is the probe's `crash-writer` subcommand (`CrashWriterCommand`), which reports
/// each batch before (`BEGIN`) and after (`ACK`) it is saved, and change tokens (`TOKEN`).
/// The scenario keeps the acknowledged state from those lines (``CrashLedger``) and, after
/// each kill, compares it with the store reopened in this process.
public enum CrashRecoveryScenario {
    /// What to run.
    public struct Configuration: Sendable {
        /// Chooses the kill points and the writer's seeds.
        public var seed: UInt64
        /// The store as `crash-writer` takes it: a SQLite file path or an `lmdb:` URL.
        public var store: String
        /// How many times the writer is launched and killed.
        public var rounds = 8
        /// The zone the writer writes.
        public var zoneName = "Crash"
        /// The container the writer writes (as in `CrashWriterCommand.containerIdentifier`).
        public var containerIdentifier = "iCloud.stratus.crash-writer"
        /// A round that has not seen its kill point after this long fails.
        public var roundTimeout: Duration = .seconds(20)

        /// A configuration with `seed`, `store` and the defaults.
        public init(seed: UInt64, store: String) {
            self.seed = seed
            self.store = store
        }
    }

    /// What happened, and what was wrong.
    public struct Report: Sendable, CustomStringConvertible {
        /// Batches the writers announced, and acknowledged.
        public var batchesBegun = 0, batchesAcknowledged = 0
        /// How many kills found the store in each ``InFlight`` state, by its kind.
        public var outcomes: [String: Int] = [:]
        /// One line per round.
        public var rounds: [String] = []
        /// Every broken invariant, described; empty when the scenario passed.
        public var problems: [String] = []
        /// Wall-clock milliseconds of the whole scenario.
        public var milliseconds = 0

        /// A textual description, for logs.
        public var description: String {
            "\(batchesBegun) batches begun, \(batchesAcknowledged) acknowledged, \(rounds.count) kills ("
                + outcomes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                + ") in \(milliseconds) ms\n  " + rounds.joined(separator: "\n  ")
        }
    }

    /// What the store showed of the batch in flight at a kill.
    public enum InFlight: Sendable, CustomStringConvertible {
        /// No batch was between `BEGIN` and `ACK`.
        case none
        /// Batch `n` was in flight and is absent: nothing of it was committed.
        case lost(Int64)
        /// Batch `n` was in flight and is present, all of it.
        case committed(Int64)
        /// The store matched neither.
        case inconsistent

        /// The case's name, for counting.
        public var kind: String {
            switch self {
            case .none: return "between batches"
            case .lost: return "in flight, lost"
            case .committed: return "in flight, committed"
            case .inconsistent: return "inconsistent"
            }
        }

        /// A textual description, for logs.
        public var description: String {
            switch self {
            case .none: return "no batch in flight"
            case .lost(let n): return "batch \(n) in flight, not committed"
            case .committed(let n): return "batch \(n) in flight, committed in full"
            case .inconsistent: return "INCONSISTENT"
            }
        }
    }

    /// Runs the rounds: launch `crash-writer` on `configuration.store`, kill it after a random
    /// number of acknowledgements plus a random few milliseconds (so that the kill lands
    /// anywhere in a batch: before, during or after its commit), then open the store with
    /// `open` in this process and check it (``verify(_:open:ledger:round:)``).
    public static func run(
        _ configuration: Configuration, open: () throws -> any DatabaseBackend
    ) async throws -> Report {
        var generator = SeededGenerator(seed: configuration.seed)
        var ledger = CrashLedger()
        var report = Report()
        let started = ContinuousClock.now

        for round in 1...configuration.rounds {
            let killAfterAcks = Int.random(in: 1...40, using: &generator)
            let extraDelay = Int.random(in: 0...5_000, using: &generator)
            let writerSeed = configuration.seed &+ UInt64(round) &* 0x9E37_79B9_7F4A_7C15
            let roundStart = ContinuousClock.now
            // The probe's reader thread counts the ACKs and kills: a kill point that waited
            // for this task to see the lines would drift when the pool is busy.
            let probe = try KillableProbe(
                arguments: ["crash-writer", configuration.store, configuration.zoneName, String(writerSeed)],
                killPoint: .init(after: killAfterAcks, linesStartingWith: "ACK ", delayMicroseconds: extraDelay))
            // Never leave the writer running, whatever happens to this round.
            defer { probe.kill() }
            let timeout = configuration.roundTimeout
            let watchdog = Task {
                try await Task.sleep(for: timeout)
                probe.kill()
            }
            var acks = 0
            for await line in probe.lines {
                ledger.consume(line, round: round)
                if line.hasPrefix("ACK ") { acks += 1 }
            }
            let killed = probe.killedAtKillPoint
            watchdog.cancel()
            let exit = await probe.exit()
            let cut = probe.unterminatedLine
            if !killed || exit.reason != .uncaughtSignal || exit.status != SIGKILL {
                report.problems.append(
                    "round \(round): the writer was not killed at its kill point: "
                        + "\(acks) ACKs read, kill point \(killAfterAcks), exit \(exit), standard error: \(probe.errorOutput)"
                )
            }

            let outcome = try await verify(configuration, open: open, ledger: &ledger, round: round)
            report.outcomes[outcome.kind, default: 0] += 1
            let milliseconds = (ContinuousClock.now - roundStart) / .milliseconds(1)
            report.rounds.append(
                "round \(round): killed after \(killAfterAcks) ACKs + \(extraDelay) µs, \(outcome)"
                    + (cut.isEmpty ? "" : ", a line cut short (\(cut.count) bytes)")
                    + ", \(ledger.acknowledged.count) records, \(ledger.tokens.count) tokens checked, "
                    + "\(Int(milliseconds)) ms")
        }
        report.problems += ledger.problems
        report.batchesBegun = ledger.batchesBegun
        report.batchesAcknowledged = ledger.batchesAcknowledged
        report.milliseconds = Int((ContinuousClock.now - started) / .milliseconds(1))
        return report
    }

    /// Opens the store with `open` and checks it against the ledger: (a) it equals the
    /// acknowledged state, or that state with the in-flight batch applied in full; (b) the
    /// in-flight batch's marker is on all of its records or none; (c) a change fetch from every
    /// token so far succeeds and, folded onto the state known at the token, gives the store's
    /// state. Then the ledger adopts the store's state.
    static func verify(
        _ configuration: Configuration, open: () throws -> any DatabaseBackend, ledger: inout CrashLedger, round: Int
    ) async throws -> InFlight {
        let zoneID = CKRecordZone.ID(zoneName: configuration.zoneName, ownerName: CKCurrentUserDefaultName)
        let backend = try open()
        defer { try? backend.close() }
        let database = CKContainer(identifier: configuration.containerIdentifier, backend: backend)
            .privateCloudDatabase

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
            let fetch = await ZoneChangeFetch.fetch(database, zoneID: zoneID, since: entry.token, resultsLimit: 13)
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
