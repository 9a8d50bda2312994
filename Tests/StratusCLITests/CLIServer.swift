import Foundation
import StratusTestSupport

/// A `stratusd` on loopback over its default SQLite store, with a container, an API token, a
/// session for `alice` and a credentials file for them, and a working directory where
/// `stratus --server` runs: the setting of every `--server` test.
final class CLIServer: Sendable {
    static let container = "iCloud.com.example.cli"
    let daemon: StratusDaemonProcess
    let apiToken: String
    let session: String
    /// `{"apiToken": …, "webAuthToken": …}` of alice.
    let credentialsFile: String
    /// Where `stratus` runs (no store of its own is ever made there).
    let workspace: URL

    init() throws {
        let directory = try TemporaryDirectory(prefix: "stratus-cli-server")
        let made = try provisionStratusd(container: Self.container, users: ["alice"], in: directory)
        (apiToken, session) = (made.apiToken, made.sessions[0])
        credentialsFile = directory.appending("credentials.json").path
        try #"{"apiToken": "\#(apiToken)", "webAuthToken": "\#(session)"}"#.write(
            toFile: credentialsFile, atomically: true, encoding: .utf8)
        workspace = directory.appending("workspace")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        daemon = try StratusDaemonProcess(directory: directory)
    }

    deinit {
        daemon.stop()
        try? daemon.directory.remove()
    }

    /// The server's URL as `--server` takes it.
    var url: String { daemon.baseURL.absoluteString }

    /// Runs `stratus --server URL --credentials-file PATH --container C arguments…` in the
    /// workspace, with `environment` only.
    func stratus(
        _ arguments: String..., environment: [String: String] = [:], input: String? = nil
    ) async throws -> StratusExecutable.Outcome {
        let global = ["--server", url, "--credentials-file", credentialsFile, "--container", Self.container]
        return try await StratusExecutable.run(
            global + arguments, in: workspace, environment: environment, input: input)
    }

    /// Whether `text` shows either token.
    func leaksASecret(_ text: String) -> Bool {
        text.contains(apiToken) || text.contains(session)
    }
}
