import Foundation
import Stratus
import StratusBackend
import StratusConfiguration
import StratusInMemory
import StratusRemote
import Testing

/// `server` configured: `CKContainer(identifier:)` and `.default()` are remote containers on a
/// real `stratusd` on loopback. (In `BootstrapTests`, whose tests run one at a time: they all
/// set the process's default container.)
extension BootstrapTests {
    /// The user record name the server gives alice's credentials, asked through an explicit
    /// remote container.
    private func aliceRecordName(_ server: LoopbackStratusd) async throws -> String {
        let explicit = CKContainer(
            identifier: server.container,
            server: RemoteServer(
                url: server.daemon.baseURL,
                credentials: .session(apiToken: server.apiToken, webAuthToken: server.session)))
        return try await explicit.userRecordID().recordName
    }

    @Test func aConfiguredServerMakesTheDefaultContainersRemote() async throws {
        let server = try LoopbackStratusd()
        let configured = try await StratusBootstrap.configureDefaultContainers(
            environment: server.environment, registry: BackendRegistry())
        #expect(configured.backend == nil)
        #expect(configured.server?.url == server.daemon.baseURL)
        #expect(configured.settings.usesRemoteServer)

        let container = CKContainer.default()
        #expect(container.containerIdentifier == server.container)
        // The user is the server's: only a remote container asks users/caller.
        let alice = try await aliceRecordName(server)
        #expect(try await container.userRecordID().recordName == alice)
        let byIdentifier = CKContainer(identifier: server.container)
        #expect(try await byIdentifier.userRecordID().recordName == alice)
        CKContainer.registerDefault(InMemoryBackend(store: InMemoryStore()))
    }

    @Test func aServerRegisteredForOneIdentifierLeavesTheDefaultLocal() async throws {
        // Its own identifier: a registration by identifier outlives the test and wins over the
        // default that the other tests register.
        let server = try LoopbackStratusd(container: "iCloud.com.example.registered")
        let local = InMemoryBackend(store: InMemoryStore())
        CKContainer.registerDefault(local, identifier: "iCloud.local")
        CKContainer.register(
            server: RemoteServer(
                url: server.daemon.baseURL,
                credentials: .session(apiToken: server.apiToken, webAuthToken: server.session)),
            forContainerIdentifier: server.container)
        let alice = try await aliceRecordName(server)
        let localUser = try await CKContainer(identifier: "iCloud.local", backend: local).userRecordID().recordName
        #expect(alice != localUser)
        let remote = CKContainer(identifier: server.container)
        #expect(try await remote.userRecordID().recordName == alice)
        let embedded = CKContainer.default()
        #expect(try await embedded.userRecordID().recordName == localUser)
        // Registering a backend for the identifier replaces the server.
        CKContainer.register(local, forContainerIdentifier: server.container)
        let replaced = CKContainer(identifier: server.container)
        #expect(try await replaced.userRecordID().recordName == localUser)
    }

    @Test func credentialsAreReadAtStartUpAndNeverShown() async throws {
        let environment = [
            "STRATUS_SERVER": "http://127.0.0.1:9", "STRATUS_SERVER_CREDENTIALS_FILE": "/no/such/credentials.json",
        ]
        let error = await #expect(throws: StratusSettingsError.self) {
            try await StratusBootstrap.configureDefaultContainers(environment: environment, registry: BackendRegistry())
        }
        #expect(error?.message.contains("'/no/such/credentials.json'") == true)
        #expect(error?.message.contains("does not exist") == true)
    }
}

extension BootstrapTests {
    /// A live operation (needs the Web Services client translators): what unchanged CloudKit
    /// code saves through `CKContainer.default()` is on the server.
    @Test func liveAZoneSavedThroughTheDefaultContainerIsOnTheServer() async throws {
        let server = try LoopbackStratusd()
        try await StratusBootstrap.configureDefaultContainers(
            environment: server.environment, registry: BackendRegistry())
        let saved = try await CKContainer.default().privateCloudDatabase.save(CKRecordZone(zoneName: "Configured"))
        #expect(saved.zoneID.zoneName == "Configured")
        let explicit = CKContainer(
            identifier: server.container,
            server: RemoteServer(
                url: server.daemon.baseURL,
                credentials: .session(apiToken: server.apiToken, webAuthToken: server.session)))
        let zones = try await explicit.privateCloudDatabase.allRecordZones().map(\.zoneID.zoneName)
        #expect(zones.contains("Configured"))
        CKContainer.registerDefault(InMemoryBackend(store: InMemoryStore()))
    }
}
