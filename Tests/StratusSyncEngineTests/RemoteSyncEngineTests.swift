import Foundation
import Stratus
import StratusRemote
import StratusTestSupport
import Testing

/// The same engine over remote containers: two devices of one user, each with its own remote
/// container on a `stratusd` on loopback, with explicit syncs and then automatic sync.
@Suite struct RemoteSyncEngineTests {
    static let container = "iCloud.com.example.sync-engine"

    @Test func twoDevicesSyncThroughAServer() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-sync-engine-remote")
        let made = try provisionStratusd(container: Self.container, users: ["alice"], in: directory)
        let server = try StratusDaemonProcess(directory: directory)
        defer {
            server.stop()
            try? directory.remove()
        }
        let open = {
            CKContainer(
                identifier: Self.container,
                server: RemoteServer(
                    url: server.baseURL,
                    credentials: .session(apiToken: made.apiToken, webAuthToken: made.sessions[0])))
        }
        let (a, b) = (Device("A"), Device("B"))
        a.start(open().privateCloudDatabase)
        b.start(open().privateCloudDatabase)
        a.createZone()
        a.write("n1", "one")
        a.write("n2", "two")
        try await a.engine.sendChanges()
        try await a.engine.fetchChanges()
        try await b.engine.fetchChanges()
        #expect(b.notes == ["n1": "one", "n2": "two"])

        a.write("n1", "from A")
        b.write("n1", "from B")
        b.delete("n2")
        try await a.engine.sendChanges()
        try await b.engine.sendChanges()
        #expect(b.conflictServerTexts == ["from A"])
        try await a.engine.fetchChanges()
        #expect(a.notes == ["n1": "from B"])

        a.stop()
        b.stop()
        a.start(open().privateCloudDatabase, automaticallySync: true)
        b.start(open().privateCloudDatabase, automaticallySync: true)
        a.write("n3", "three")
        try await eventually { b.notes["n3"] == "three" }
        #expect(try await storeNotes(open().privateCloudDatabase, zoneID: a.zoneID) == b.notes)
        a.stop()
        b.stop()
    }
}
