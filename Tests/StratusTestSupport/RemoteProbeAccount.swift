public import Foundation

/// A user's credentials for a `stratusd`, in a file that `StratusTestProbe`'s `remote-*`
/// subcommands read (`{"apiToken", "webAuthToken"}`, readable by its owner only), so that the
/// tokens never appear on a command line.
public struct RemoteProbeAccount: Sendable {
    /// The credentials file.
    public let credentialsFile: URL
    /// The container's identifier.
    public let container: String

    /// Writes `apiToken` and `webAuthToken` to a new file named `name` in `directory`.
    public init(
        apiToken: String, webAuthToken: String, container: String, in directory: TemporaryDirectory,
        name: String = "credentials-\(UUID().uuidString).json"
    ) throws {
        credentialsFile = directory.appending(name)
        self.container = container
        let body = try JSONSerialization.data(withJSONObject: ["apiToken": apiToken, "webAuthToken": webAuthToken])
        guard
            FileManager.default.createFile(
                atPath: credentialsFile.path, contents: body, attributes: [.posixPermissions: 0o600])
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: credentialsFile.path])
        }
    }

    /// The options a `remote-*` subcommand begins with, for the server at `url`.
    public func arguments(server url: URL) -> [String] {
        ["--server", url.absoluteString, "--credentials", credentialsFile.path, "--container", container]
    }
}
