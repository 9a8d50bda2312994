import Foundation
import Stratus
import StratusRemote

/// The options every `remote-*` subcommand begins with: which `stratusd`, whose credentials
/// and which container, as `--server URL --credentials FILE --container ID`.
///
/// The credentials file is JSON in the form of the `serverCredentialsFile` setting,
/// `{"apiToken": …, "webAuthToken": …}`; the tokens are read from it so that they never appear
/// in a process listing, and no message of the probe ever shows them.
struct RemoteProbeOptions {
    /// The option words, for the usage lines.
    static let usage = "--server <url> --credentials <file> --container <identifier>"

    var server: RemoteServer
    var containerIdentifier: String

    /// The options at the start of `arguments`; the rest are returned as `positional`.
    static func parse(_ arguments: [String]) throws -> (options: RemoteProbeOptions, positional: [String]) {
        var values: [String: String] = [:]
        var rest = arguments[...]
        while let flag = rest.first, flag.hasPrefix("--") {
            guard ["--server", "--credentials", "--container"].contains(flag), rest.count >= 2 else {
                throw ProbeUsageError(message: "unknown option or missing value: \(flag)")
            }
            values[flag] = rest.dropFirst().first
            rest = rest.dropFirst(2)
        }
        guard let address = values["--server"], let url = URL(string: address), url.host != nil,
            let file = values["--credentials"], let container = values["--container"]
        else {
            throw ProbeUsageError(message: "remote subcommands need \(usage)")
        }
        let credentials = try readCredentials(file)
        return (
            RemoteProbeOptions(
                server: RemoteServer(url: url, credentials: credentials), containerIdentifier: container), Array(rest)
        )
    }

    /// A new remote container for the options' server, user and identifier.
    func container() -> CKContainer {
        CKContainer(identifier: containerIdentifier, server: server)
    }

    /// The credentials in `path`; its errors name the file and the expected form, never its
    /// content.
    private static func readCredentials(_ path: String) throws -> RemoteCredentials {
        struct File: Decodable {
            var apiToken: String
            var webAuthToken: String?
        }
        guard let data = FileManager.default.contents(atPath: path),
            let file = try? JSONDecoder().decode(File.self, from: data)
        else {
            throw ProbeUsageError(
                message: "the credentials file \(path) cannot be read as {\"apiToken\": …, \"webAuthToken\": …}")
        }
        if let session = file.webAuthToken { return .session(apiToken: file.apiToken, webAuthToken: session) }
        return .apiToken(file.apiToken)
    }
}
