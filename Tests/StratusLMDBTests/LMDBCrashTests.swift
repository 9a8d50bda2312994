import Foundation
import StratusBackend
import StratusLMDB
import StratusTestSupport
import Testing

/// A writer process saving records through the engine, killed with `SIGKILL` at random
/// moments, again and again, on one LMDB environment (`CrashRecoveryScenario`, as
/// `SQLiteCrashTests` runs it on SQLite), and the reader slots killed processes leave behind.
@Suite("LMDB crash recovery")
struct LMDBCrashTests {
    /// The test's seed: `STRATUS_CRASH_SEED` if set (to replay a failure), else fixed.
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["STRATUS_CRASH_SEED"].flatMap { UInt64($0) } ?? 0x14DB_C4A5
    }

    /// After every kill the environment, reopened, holds every acknowledged batch, no part of
    /// an atomic batch without the rest, and every change token the writer printed resumes
    /// without gaps. This process keeps the environment open throughout with a reader table of
    /// 8 slots, so no writer opens it alone (which would reset the table): slots of killed
    /// writers are cleared by `mdb_reader_check`, and after ten kills reads still get slots.
    @Test func killedWriterKeepsAcknowledgedBatchesAtomicityAndTokens() async throws {
        let seed = Self.seed
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let holder = try storage.open(maxReaders: 8)
        defer { try? holder.close() }
        var configuration = CrashRecoveryScenario.Configuration(seed: seed, store: storage.url("maxReaders=8"))
        configuration.rounds = 10
        let report = try await CrashRecoveryScenario.run(configuration) { try storage.open(maxReaders: 8) }
        for problem in report.problems { Issue.record("seed \(seed): \(problem)") }
        print("LMDBCrashTests (seed \(seed)): \(report)")
        #expect(report.batchesAcknowledged >= configuration.rounds)
        #expect(report.rounds.count == configuration.rounds)

        // Every slot is usable: eight reads at once, nested on this thread.
        func nest(_ depth: Int) throws -> Int {
            try holder.read { snapshot in
                _ = try snapshot.scan(KeyRange(prefix: []), limit: 1)
                return depth == 1 ? 1 : try nest(depth - 1) + 1
            }
        }
        #expect(try nest(8) == 8)
    }

    /// Processes killed inside a read transaction leave their reader slots taken. With all four
    /// slots of the table held by live processes a read here is refused (`busy`); once they
    /// are killed, this process — which never reopens the environment — clears their slots
    /// and reads and writes again, three times over.
    @Test func readerSlotsOfKilledProcessesAreReclaimed() async throws {
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let backend = try storage.open(maxReaders: 4)
        defer { try? backend.close() }
        try backend.write { try $0.set([1], [0]) }
        for round in 1...3 {
            let probes = try (0..<4).map { _ in try KillableProbe(arguments: ["lmdb-hold-read", storage.path]) }
            defer { for probe in probes { probe.kill() } }
            for probe in probes {
                var lines = probe.lines.makeAsyncIterator()
                let line = await lines.next()
                #expect(line == "READING", "round \(round): \(probe.errorOutput)")
            }
            let full = #expect(throws: BackendError.self) { try backend.read { _ in } }
            #expect(full?.code == .busy)
            for probe in probes {
                probe.kill()
                _ = await probe.exit()
            }
            #expect(try backend.read { try $0.get([1]) } == [UInt8(round - 1)])
            try backend.write { try $0.set([1], [UInt8(round)]) }
        }
        #expect(try backend.read { try $0.get([1]) } == [3])
    }
}
