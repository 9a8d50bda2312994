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
        let made = try provisionStratusd(container: container, users: ["alice"], in: directory)
        (apiToken, session) = (made.apiToken, made.sessions[0])
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
