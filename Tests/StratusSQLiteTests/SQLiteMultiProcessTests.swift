import Foundation
import StratusBackend
import StratusSQLite
import StratusTestSupport
import Testing

/// Two processes writing one SQLite file.
@Suite("SQLite multi-process")
struct SQLiteMultiProcessTests {
    static let counterKey = Array("probe.counter".utf8)  // as in SQLiteCounterCommand

    static func decode(_ bytes: [UInt8]?) -> UInt64 {
        (bytes ?? []).reduce(0) { $0 << 8 | UInt64($1) }
    }

    @Test func twoProcessesIncrementingOneCounterLoseNoUpdate() async throws {
        let storage = try SQLiteFixtureStorage()
        defer { try? storage.destroy() }
        // Create the store first, so both probes open an existing file.
        let backend = try storage.openSQLite()
        defer { try? backend.close() }

        let count = 300
        // Meanwhile a reader on a thread of its own (not the cooperative pool, which blocking
        // tests may occupy) samples the counter as fast as it can: it must never go down.
        // It records each value that differs from the one before.
        let stop = StopFlag()
        defer { stop.stop() }
        let reader = TestThread {
            var seen: [UInt64] = []
            while !stop.isStopped {
                let value = Self.decode(try backend.read { try $0.get(Self.counterKey) })
                if seen.last != value { seen.append(value) }
            }
            return seen
        }
        let probes = try (0..<2).map { _ in
            try TestProbe.launch(["sqlite-increment", storage.path, String(count)])
        }
        for probe in probes {
            let outcome = await probe.finish()
            #expect(
                outcome.status == 0,
                "probe failed with status \(outcome.status): \(outcome.errorOutput)")
            #expect(outcome.output.hasPrefix("ok \(count) increments"))
        }
        stop.stop()
        let seen = try reader.join()
        let final = Self.decode(try backend.read { try $0.get(Self.counterKey) })
        #expect(final == UInt64(2 * count))
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 <= $1 }, "counter went down: \(seen)")
        #expect(seen.allSatisfy { $0 <= final })
        #expect(!seen.isEmpty)
    }
}
