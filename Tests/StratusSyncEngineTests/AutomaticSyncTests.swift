import Foundation
import Stratus
import Testing

/// Automatic sync: with no `fetchChanges` / `sendChanges` call, a change made on one device —
/// or written by another handle on the store — reaches the other device (decision 0017.7:
/// a send 200 ms after the change; a look at the change log when another handle of the store
/// commits, and every 500 ms). The printed figures are in `Docs/SyncEngine.md`.
@Suite struct AutomaticSyncTests {
    @Test(arguments: SyncBackend.allCases)
    func aChangeOnOneDeviceAppearsOnTheOtherWithoutSyncCalls(_ backend: SyncBackend) async throws {
        try await backend.withTwoDevices(automaticallySync: true) { a, b, open in
            let clock = ContinuousClock()
            var start = clock.now
            a.createZone()
            a.write("n1", "one")
            try await eventually { b.notes == ["n1": "one"] }
            let first = clock.now - start

            start = clock.now
            b.write("n1", "one, edited on B")
            try await eventually { a.notes == ["n1": "one, edited on B"] }
            let second = clock.now - start

            // Another handle on the store writes with a plain operation: both devices see it.
            start = clock.now
            let record = CKRecord(recordType: "Note", recordID: a.recordID("n2"))
            record["text"] = "written by another handle"
            _ = try await open().privateCloudDatabase.save(record)
            try await eventually { a.notes["n2"] != nil && b.notes["n2"] != nil }
            let third = clock.now - start
            print("automatic sync on \(backend): A→B \(first), B→A \(second), other handle→A,B \(third)")
            a.stop()
            b.stop()
        }
    }
}
