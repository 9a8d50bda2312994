import Foundation
import Stratus
import StratusRemote
import StratusTestSupport

/// A `stratusd` on loopback over its default SQLite store, with a container, an API token and
/// sessions for `alice` and `bob` made by `stratusd admin` before it starts, and remote
/// containers for them: the setting of every remote-container test.
final class RemoteFixture: Sendable {
    static let container = "iCloud.com.example.remote"
    let server: StratusDaemonProcess
    let apiToken: String
    let aliceSession: String
    let bobSession: String

    init() throws {
        let directory = try TemporaryDirectory(prefix: "stratus-remote")
        let made = try provisionStratusd(container: Self.container, users: ["alice", "bob"], in: directory)
        (apiToken, aliceSession, bobSession) = (made.apiToken, made.sessions[0], made.sessions[1])
        server = try StratusDaemonProcess(directory: directory)
    }

    deinit {
        server.stop()
        try? server.directory.remove()
    }

    /// The server as `credentials` reach it.
    func remoteServer(_ credentials: RemoteCredentials) -> RemoteServer {
        RemoteServer(url: server.baseURL, credentials: credentials)
    }

    /// A new remote container for `alice`.
    func alice() -> CKContainer {
        CKContainer(
            identifier: Self.container,
            server: remoteServer(.session(apiToken: apiToken, webAuthToken: aliceSession)))
    }

    /// A new remote container for `bob`.
    func bob() -> CKContainer {
        CKContainer(
            identifier: Self.container, server: remoteServer(.session(apiToken: apiToken, webAuthToken: bobSession)))
    }
}
