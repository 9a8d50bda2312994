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
        // Automatic sync: as Apple's engine, each engine finds a database subscription or
        // creates one, and fetches when the server notifies it.
        a.start(open().privateCloudDatabase, automaticallySync: true)
        b.start(open().privateCloudDatabase, automaticallySync: true)
        try await eventually { try await Self.databaseSubscriptionIDs(open()) == ["StratusSyncEngine"] }
        // Let both engines read their first notification page before the change.
        try await Task.sleep(for: .seconds(1))
        let clock = ContinuousClock()
        let start = clock.now
        a.write("n3", "three")
        try await eventually { b.notes["n3"] == "three" }
        print("automatic sync through stratusd: A→B \(clock.now - start)")
        #expect(try await storeNotes(open().privateCloudDatabase, zoneID: a.zoneID) == b.notes)
        // Both engines share the one subscription.
        #expect(try await Self.databaseSubscriptionIDs(open()) == ["StratusSyncEngine"])
        a.stop()
        b.stop()
    }

    /// A remote container whose credentials now name another user: the engine posts
    /// `switchAccounts` before its first sync and drops the previous user's state, pending
    /// changes included; with `Configuration.subscriptionID` set it uses that subscription.
    @Test func anotherUsersCredentialsSwitchAccounts() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-sync-engine-account")
        let made = try provisionStratusd(container: Self.container, users: ["alice", "bob"], in: directory)
        let server = try StratusDaemonProcess(directory: directory)
        defer {
            server.stop()
            try? directory.remove()
        }
        let open = { (session: Int) in
            CKContainer(
                identifier: Self.container,
                server: RemoteServer(
                    url: server.baseURL,
                    credentials: .session(apiToken: made.apiToken, webAuthToken: made.sessions[session])))
        }
        let alice = try await open(0).userRecordID().recordName
        let bob = try await open(1).userRecordID().recordName
        let device = Device("A")
        device.start(open(0).privateCloudDatabase)
        device.createZone()
        device.write("n1", "alice's")
        try await device.engine.sendChanges()
        #expect(device.accountChanges == ["signIn(\(alice))"])
        // A change added but not sent, persisted by the state update that follows it.
        let updates = device.events.filter { $0 == "stateUpdate" }.count
        device.write("n2", "not sent")
        try await eventually { device.events.filter { $0 == "stateUpdate" }.count > updates }
        device.stop()

        device.start(open(1).privateCloudDatabase, automaticallySync: true, subscriptionID: "app-subscription")
        try await eventually { device.accountChanges.count == 2 }
        #expect(device.accountChanges == ["signIn(\(alice))", "switchAccounts(\(alice)→\(bob))"])
        #expect(device.engine.state.pendingRecordZoneChanges.isEmpty)
        #expect(device.engine.state.pendingDatabaseChanges.isEmpty)
        try await eventually { try await Self.databaseSubscriptionIDs(open(1)) == ["app-subscription"] }
        try await device.engine.fetchChanges()
        #expect(device.notes.isEmpty)
        // Alice's data is untouched; Bob's database got nothing of hers.
        #expect(try await storeNotes(open(0).privateCloudDatabase, zoneID: device.zoneID) == ["n1": "alice's"])
        #expect(try await Self.databaseSubscriptionIDs(open(0)).isEmpty)
        device.stop()
    }

    /// The IDs of the database subscriptions of `container`'s private database.
    static func databaseSubscriptionIDs(_ container: CKContainer) async throws -> [CKSubscription.ID] {
        try await container.privateCloudDatabase.allSubscriptions().filter { $0 is CKDatabaseSubscription }
            .map(\.subscriptionID).sorted()
    }
}
