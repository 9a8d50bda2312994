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
        func admin(_ arguments: [String]) throws -> String {
            let run = try runAdmin(arguments, in: directory)
            guard run.status == 0 else { throw StratusDaemonProcess.StartFailure(description: run.errors) }
            return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        _ = try admin(["container", "create", Self.container])
        apiToken = try admin(["token", "create", "--container", Self.container, "--environment", "development"])
        let session = ["session", "create", "--container", Self.container, "--environment", "development", "--user"]
        aliceSession = try admin(session + ["alice"])
        bobSession = try admin(session + ["bob"])
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
