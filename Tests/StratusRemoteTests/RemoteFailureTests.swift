import Foundation
import Stratus
import StratusRemote
import StratusTestSupport
import Testing

/// What a remote container's operations fail with when the server cannot be reached or refuses
/// the credentials (decision 0016.5).
@Suite("Remote containers: failures")
struct RemoteFailureTests {
    @Test func aServerThatIsNotThereIsNetworkUnavailable() async throws {
        // A port nothing listens on: bind one, then close it.
        let server = RemoteServer(
            url: URL(string: "http://127.0.0.1:\(try ClosedPort.make())")!,
            credentials: .session(apiToken: "0", webAuthToken: "0"), connectTimeout: .seconds(1))
        let container = CKContainer(identifier: "iCloud.nowhere", server: server)
        let error = try #require(
            await #expect(throws: CKError.self) {
                try await container.privateCloudDatabase.record(for: CKRecord.ID(recordName: "x"))
            })
        #expect(error.code == .networkUnavailable, "\(error)")
    }

    @Test func refusedCredentialsAreNotAuthenticated() async throws {
        let fixture = try await offPool { try RemoteFixture() }
        let container = CKContainer(
            identifier: RemoteFixture.container,
            server: fixture.remoteServer(.session(apiToken: fixture.apiToken, webAuthToken: "not-a-session")))
        let error = try #require(
            await #expect(throws: CKError.self) {
                try await container.privateCloudDatabase.record(for: CKRecord.ID(recordName: "x"))
            })
        #expect(error.code == .notAuthenticated, "\(error)")
    }

    @Test func credentialsNeverAppearInDescriptions() {
        let credentials = RemoteCredentials.session(apiToken: "secret-token", webAuthToken: "secret-session")
        let server = RemoteServer(url: URL(string: "http://127.0.0.1:1")!, credentials: credentials)
        for text in ["\(credentials)", "\(server)", String(reflecting: server)] {
            #expect(!text.contains("secret"), "\(text)")
        }
    }
}
