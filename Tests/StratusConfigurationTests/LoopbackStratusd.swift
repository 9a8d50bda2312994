import Foundation
import StratusTestSupport

/// A `stratusd` on loopback over its default SQLite store, with a container, an API token and
/// a session for `alice` made by `stratusd admin` before it starts, and a credentials file for
/// them: what a configured remote default container reaches.
final class LoopbackStratusd: Sendable {
    /// The container's identifier when the test names none.
    static let defaultContainer = "iCloud.com.example.configured"
    /// The container on the server.
    let container: String
    let daemon: StratusDaemonProcess
    let apiToken: String
    let session: String
    /// `{"apiToken": …, "webAuthToken": …}` of alice.
    let credentialsFile: String

    /// A server with the container `container`. (A container registered by identifier stays
    /// registered for the process, so a test that registers one names a container of its own.)
    init(container: String = LoopbackStratusd.defaultContainer) throws {
        self.container = container
        let directory = try TemporaryDirectory(prefix: "stratus-config-remote")
        func admin(_ arguments: [String]) throws -> String {
            let run = try runAdmin(arguments, in: directory)
            guard run.status == 0 else { throw StratusDaemonProcess.StartFailure(description: run.errors) }
            return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        _ = try admin(["container", "create", container])
        apiToken = try admin(["token", "create", "--container", container, "--environment", "development"])
        session = try admin([
            "session", "create", "--container", container, "--environment", "development", "--user", "alice",
        ])
        credentialsFile = directory.appending("credentials.json").path
        try #"{"apiToken": "\#(apiToken)", "webAuthToken": "\#(session)"}"#.write(
            toFile: credentialsFile, atomically: true, encoding: .utf8)
        daemon = try StratusDaemonProcess(directory: directory)
    }

    /// The variables that make the default containers remote containers of alice's.
    var environment: [String: String] {
        [
            "STRATUS_SERVER": daemon.baseURL.absoluteString, "STRATUS_SERVER_CREDENTIALS_FILE": credentialsFile,
            "STRATUS_CONTAINER": container,
        ]
    }

    deinit {
        daemon.stop()
        try? daemon.directory.remove()
    }
}
