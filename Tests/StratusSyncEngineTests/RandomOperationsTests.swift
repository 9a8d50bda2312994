import Stratus
import StratusTestSupport
import Testing

/// 100 random operations on each of two devices — creates, edits, deletes of ten notes —
/// interleaved with random sends and fetches; then both sync until nothing is pending, and both
/// local models equal the store.
@Suite struct RandomOperationsTests {
    @Test(arguments: SyncBackend.allCases)
    func twoDevicesConvergeAfterRandomOperations(_ backend: SyncBackend) async throws {
        try await backend.withStore { open in
            let devices = [Device("A"), Device("B")]
            for device in devices { device.start(try open().privateCloudDatabase) }
            devices[0].createZone()
            try await devices[0].engine.sendChanges()
            var random = SeededGenerator(seed: 14)
            var done = [0, 0]
            while done[0] < 100 || done[1] < 100 {
                let index = done[0] >= 100 ? 1 : done[1] >= 100 ? 0 : Int.random(in: 0...1, using: &random)
                let device = devices[index]
                let note = "n\(Int.random(in: 0..<10, using: &random))"
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<5: device.write(note, "\(device.name)\(done[index])")
                case 5..<7: if device.notes[note] != nil { device.delete(note) }
                case 7..<9: try await device.engine.sendChanges()
                default: try await device.engine.fetchChanges()
                }
                done[index] += 1
            }
            for _ in 0..<3 {
                for device in devices { try await device.engine.sendChanges() }
                for device in devices { try await device.engine.fetchChanges() }
            }
            let store = try await storeNotes(try open().privateCloudDatabase, zoneID: devices[0].zoneID)
            for device in devices {
                #expect(device.engine.state.pendingRecordZoneChanges.isEmpty)
                #expect(device.notes == store)
            }
        }
    }
}
