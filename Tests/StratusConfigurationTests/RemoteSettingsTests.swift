import Foundation
import StratusConfiguration
import StratusRemote
import Testing

/// `server` and `serverCredentialsFile` (decision 0016.4): values, overrides, refusals, and
/// errors that name the key, what it accepts and where its value came from — never a token.
@Suite("Configuration: a remote default container")
struct RemoteSettingsTests {
    static let apiToken = "API-TOKEN-c0ffee-never-printed"
    static let webAuthToken = "WEB-AUTH-TOKEN-f00d-never-printed"

    /// A credentials file holding `json`.
    private func credentials(_ json: String) throws -> String { try TemporaryConfigFile.write(json) }

    /// A well-formed credentials file with both tokens.
    private func sessionFile(environment: String? = nil) throws -> String {
        let extra = environment.map { #", "environment": "\#($0)""# } ?? ""
        return try credentials(#"{"apiToken": "\#(Self.apiToken)", "webAuthToken": "\#(Self.webAuthToken)"\#(extra)}"#)
    }

    /// Checks that `text` shows neither token.
    private func expectNoSecret(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!text.contains(Self.apiToken), sourceLocation: sourceLocation)
        #expect(!text.contains(Self.webAuthToken), sourceLocation: sourceLocation)
        #expect(!text.contains("c0ffee") && !text.contains("f00d"), sourceLocation: sourceLocation)
    }

    @Test func nothingConfiguredIsEmbedded() async throws {
        let settings = try await StratusSettings.load(environment: [:])
        #expect(!settings.usesRemoteServer)
        #expect(settings.remote == StratusRemoteSettings())
        #expect(try settings.remoteServer() == nil)
        #expect(settings.origins["server"] == "default" && settings.origins["serverCredentialsFile"] == "default")
    }

    @Test func environmentVariablesMakeTheServer() async throws {
        let file = try sessionFile()
        let settings = try await StratusSettings.load(environment: [
            "STRATUS_SERVER": "https://cloud.example.com:8443/base/", "STRATUS_SERVER_CREDENTIALS_FILE": file,
        ])
        #expect(settings.usesRemoteServer)
        #expect(settings.remote.url?.absoluteString == "https://cloud.example.com:8443/base/")
        #expect(settings.remote.credentialsFile == file)
        #expect(settings.origins["server"] == "environment variable STRATUS_SERVER")
        #expect(settings.origins["serverCredentialsFile"] == "environment variable STRATUS_SERVER_CREDENTIALS_FILE")
        let server = try #require(try settings.remoteServer())
        #expect(server.environment == .development)
        guard case .session(let apiToken, let webAuthToken) = server.credentials else {
            Issue.record("expected a session, got \(server.credentials)")
            return
        }
        #expect(apiToken == Self.apiToken && webAuthToken == Self.webAuthToken)
        expectNoSecret("\(server) \(server.credentials) \(settings)")
    }

    @Test func theFileSetsTheKeysAndTheEnvironmentWins() async throws {
        let credentialsPath = try credentials(#"{"apiToken": "\#(Self.apiToken)", "environment": "production"}"#)
        let config = try TemporaryConfigFile.write(
            #"{"server": "http://10.0.0.1:8080", "serverCredentialsFile": "\#(credentialsPath)"}"#)
        let fromFile = try await StratusSettings.load(environment: [:], configFile: config)
        #expect(fromFile.remote.url?.absoluteString == "http://10.0.0.1:8080")
        #expect(fromFile.origins["server"] == config)
        let server = try #require(try fromFile.remoteServer())
        #expect(server.environment == .production)
        guard case .apiToken(let token) = server.credentials else {
            Issue.record("expected an API token alone, got \(server.credentials)")
            return
        }
        #expect(token == Self.apiToken)

        let overridden = try await StratusSettings.load(
            environment: ["STRATUS_SERVER": "https://other.example.com"], configFile: config)
        #expect(overridden.remote.url?.absoluteString == "https://other.example.com")
        #expect(overridden.origins["server"] == "environment variable STRATUS_SERVER")
    }

    @Test func overridesWinAndCanUnsetAKey() async throws {
        let file = try sessionFile()
        let settings = try await StratusSettings.load(
            environment: ["STRATUS_BACKEND": "memory:"],
            overrides: ["server": "http://127.0.0.1:9", "backend": "", "serverCredentialsFile": file])
        #expect(settings.usesRemoteServer && settings.usesDefaultBackend)
        #expect(settings.origins["server"] == "the command line")
        let unknown = await #expect(throws: StratusSettingsError.self) {
            try await StratusSettings.load(environment: [:], overrides: ["servr": "http://x"])
        }
        #expect(unknown?.message == "configuration: there is no key 'servr' to override")
    }

    @Test(arguments: [
        ("ftp://cloud.example.com", true), ("cloud.example.com", true), ("https://", true),
        ("https://host/#top", true),
        ("https://user:\(RemoteSettingsTests.apiToken)@cloud.example.com", false),
        ("https://cloud.example.com/?ckAPIToken=\(RemoteSettingsTests.apiToken)", false),
    ])
    func aServerThatIsNotAnHTTPURLIsRefused(value: String, echoed: Bool) async throws {
        let file = try sessionFile()
        let error = await #expect(throws: StratusSettingsError.self) {
            try await StratusSettings.load(environment: [
                "STRATUS_SERVER": value, "STRATUS_SERVER_CREDENTIALS_FILE": file,
            ])
        }
        let message = try #require(error?.message)
        #expect(error?.key == "server")
        #expect(message.hasPrefix("configuration: 'server' must be the http or https URL of a stratusd"), "\(message)")
        #expect(message.hasSuffix("(from environment variable STRATUS_SERVER)"), "\(message)")
        #expect(message.contains("got '\(value)'") == echoed, "\(message)")
        expectNoSecret(message)
    }

    @Test func serverWithABackendIsRefused() async throws {
        let file = try sessionFile()
        let config = try TemporaryConfigFile.write(#"{"backend": "memory:"}"#)
        let error = await #expect(throws: StratusSettingsError.self) {
            try await StratusSettings.load(
                environment: ["STRATUS_SERVER": "http://127.0.0.1:9", "STRATUS_SERVER_CREDENTIALS_FILE": file],
                configFile: config)
        }
        #expect(
            error?.message
                == "configuration: 'server' and 'backend' are both set: a default container is either remote, on the "
                + "stratusd 'server' names, or over the local 'backend'; remove one of them "
                + "('server' from environment variable STRATUS_SERVER, 'backend' from \(config))")
    }

    @Test func eachKeyNeedsTheOther() async throws {
        let withoutFile = await #expect(throws: StratusSettingsError.self) {
            try await StratusSettings.load(environment: ["STRATUS_SERVER": "http://127.0.0.1:9"])
        }
        #expect(withoutFile?.key == "server")
        #expect(
            withoutFile?.message.hasPrefix(
                "configuration: 'server' is set but 'serverCredentialsFile' is not: a remote container needs credentials; set 'serverCredentialsFile' (STRATUS_SERVER_CREDENTIALS_FILE) to the path of a JSON file"
            ) == true, "\(withoutFile?.message ?? "")")
        let withoutServer = await #expect(throws: StratusSettingsError.self) {
            try await StratusSettings.load(environment: ["STRATUS_SERVER_CREDENTIALS_FILE": "/etc/stratus/creds.json"])
        }
        #expect(withoutServer?.key == "serverCredentialsFile")
        #expect(
            withoutServer?.message
                == "configuration: 'serverCredentialsFile' is set but 'server' is not: set 'server' (STRATUS_SERVER) to the stratusd the credentials are for, or remove 'serverCredentialsFile' (from environment variable STRATUS_SERVER_CREDENTIALS_FILE)"
        )
    }
}
