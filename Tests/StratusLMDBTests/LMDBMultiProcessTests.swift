import Foundation
import StratusBackend
import StratusLMDB
import StratusTestSupport
import Testing

/// Several processes on one LMDB environment, and a writer killed mid-transaction.
@Suite("LMDB multi-process")
struct LMDBMultiProcessTests {
    static let counterKey = Array("probe.counter".utf8)  // as in LMDBCounterCommand

    /// Two processes increment one counter (each write also growing the map from 1 MiB) while
    /// this process reads it: no update is lost and the counter never goes down.
    @Test func twoProcessesIncrementingOneCounterLoseNoUpdate() async throws {
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let backend = try storage.open(initialMapSize: 1 << 20)
        defer { try? backend.close() }
        let count = 300
        let probes = try (0..<2).map { i in
            try TestProbe.launch(["lmdb-increment", storage.path, String(count), "8", storage.path + "/ack\(i)"])
        }
        var seen: [UInt64] = []
        while probes.contains(where: \.isRunning) {
            let value = fromBE64(try backend.read { try $0.get(Self.counterKey) })
            if seen.last != value { seen.append(value) }
            try await Task.sleep(for: .milliseconds(1))
        }
        for probe in probes {
            let outcome = await probe.finish()
            #expect(outcome.status == 0, "probe failed with status \(outcome.status): \(outcome.errorOutput)")
            #expect(outcome.output.hasPrefix("ok \(count) increments"))
        }
        let final = fromBE64(try backend.read { try $0.get(Self.counterKey) })
        #expect(final == UInt64(2 * count))
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 <= $1 }, "counter went down: \(seen)")
        let batches = try backend.read { try $0.scan(KeyRange(prefix: Array("probe.batch.".utf8)), limit: 10_000) }
        #expect(batches.count == 2 * count * 8)
    }

    /// A writer killed with SIGKILL at random moments: after reopening, the counter is at least
    /// the last value it acknowledged (at most one more, committed but not yet acknowledged),
    /// and exactly the batches of committed values exist, each complete.
    @Test(arguments: [40, 90, 160, 250])
    func killedWriterLosesNothingAcknowledgedAndShowsNothingUnacknowledged(delayMilliseconds: Int) async throws {
        let storage = try LMDBTestStorage()
        defer { storage.destroy() }
        let ackFile = storage.path + ".ack"
        defer { try? FileManager.default.removeItem(atPath: ackFile) }
        let probe = try TestProbe.launch(["lmdb-increment", storage.path, "1000000", "200", ackFile])
        // A blocking sleep, not Task.sleep: in a parallel run other tests hold the cooperative
        // pool's threads, and a Task.sleep of 40 ms once woke after two minutes, by when the
        // writer had committed 1.5 million keys.
        usleep(UInt32(delayMilliseconds) * 1000)
        probe.kill()
        _ = await probe.finish()
        let acknowledged = fromBE64(FileManager.default.contents(atPath: ackFile).map { [UInt8]($0) })

        let backend = try storage.open()
        defer { try? backend.close() }
        let counter = fromBE64(try backend.read { try $0.get(Self.counterKey) })
        #expect(
            counter >= acknowledged && counter <= acknowledged + 1, "counter \(counter), acknowledged \(acknowledged)")
        // One more than expected: a stray batch would show.
        let keys = try backend.read {
            try $0.scan(KeyRange(prefix: Array("probe.batch.".utf8)), limit: Int(counter) * 200 + 1)
        }
        #expect(keys.count == Int(counter) * 200)
        var perValue: [UInt64: Int] = [:]
        for pair in keys {
            let parts = String(decoding: pair.key, as: UTF8.self).split(separator: ".")
            perValue[UInt64(parts[2]) ?? 0, default: 0] += 1
        }
        #expect(perValue.keys.allSatisfy { $0 >= 1 && $0 <= counter })
        #expect(perValue.values.allSatisfy { $0 == 200 })
        // The environment is still writable (stale reader slots of the dead process cleared).
        try backend.write { try $0.set(Self.counterKey, be64(counter + 1)) }
    }
}
