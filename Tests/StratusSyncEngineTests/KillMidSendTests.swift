import Foundation
import Stratus
import StratusBackend
import StratusConfiguration
import StratusTestSupport
import Testing

/// A device process (`StratusTestProbe sync-engine-device`) SIGKILLed in the middle of a send of
/// 1,000 notes (three requests), twice, then run to its end from its last persisted state: the
/// store holds every note once with its text, nothing stays pending, and a second device
/// fetching the store gets the same notes.
@Suite struct KillMidSendTests {
    static let count = 1_000

    @Test(arguments: ["sqlite", "lmdb"])
    func aDeviceKilledMidSendConvergesAfterRestart(_ kind: String) async throws {
        try await withTemporaryDirectory(prefix: "sync-engine-kill") { directory in
            let store = kind == "sqlite" ? directory.appending("store.sqlite").path : "lmdb://\(directory.path)/lmdb"
            let stateFile = directory.appending("state.json").path
            let arguments = ["sync-engine-device", store, stateFile, String(Self.count)]
            for delay in [0, 3_000] {
                let probe = try KillableProbe(
                    arguments: arguments,
                    killPoint: .init(after: 1, linesStartingWith: "SENT", delayMicroseconds: delay))
                var lines: [String] = []
                for await line in probe.lines { lines.append(line) }
                let exit = await probe.exit()
                #expect(probe.killedAtKillPoint, "killed after a request: \(lines) \(probe.errorOutput)")
                #expect(exit.reason == .uncaughtSignal && exit.status == SIGKILL)
            }
            let probe = try KillableProbe(arguments: arguments)
            var lines: [String] = []
            for await line in probe.lines { lines.append(line) }
            let exit = await probe.exit()
            #expect(exit.reason == .exit && exit.status == 0, "\(probe.errorOutput)")
            #expect(lines.last == "DONE 0")
            #expect(lines.contains { $0.hasPrefix("SENT") }, "the killed launches left changes to send")

            let url = kind == "sqlite" ? "sqlite://\(store)" : store
            let registry = BackendRegistry(StratusBootstrap.builtInProviders)
            let open = {
                CKContainer(
                    identifier: "iCloud.stratus.sync-engine-device", backend: try registry.makeBackend(for: url))
            }
            let expected = Dictionary(uniqueKeysWithValues: (0..<Self.count).map { ("note\($0)", "text \($0)") })
            let device = Device("B")
            #expect(try await storeNotes(try open().privateCloudDatabase, zoneID: device.zoneID) == expected)
            device.start(try open().privateCloudDatabase)
            try await device.engine.fetchChanges()
            #expect(device.notes == expected)
        }
    }
}
