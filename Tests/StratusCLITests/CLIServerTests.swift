import Foundation
import Testing

/// `--server` without a live operation: what the tool refuses, what it shows, and how a
/// remote container's failures reach the user — never with a token.
@Suite("stratus --server: refusals, configuration and failures")
struct CLIServerTests {
    @Test func commandsReadingTheStoreDirectlyRefuseAServer() async throws {
        let server = try CLIServer()
        let refused = try await server.stratus("conformance", "--filter", "kv.")
        #expect(refused.status == 64)
        #expect(
            refused.errorOutput.contains(
                "conformance cannot use --server: it tests a backend's storage directly, through the backend SPI"),
            "\(refused.errorOutput)")
        // A server from the environment is refused too, before any storage is made.
        let configured = try await StratusExecutable.run(
            ["conformance", "--filter", "kv."], in: server.workspace,
            environment: ["STRATUS_SERVER": server.url, "STRATUS_SERVER_CREDENTIALS_FILE": server.credentialsFile])
        #expect(configured.status == 78)
        #expect(
            configured.errorOutput.hasSuffix(
                "(the configuration names a server, from environment variable STRATUS_SERVER)\n"),
            "\(configured.errorOutput)")
        #expect(!server.leaksASecret(refused.errorOutput + configured.errorOutput))
    }

    @Test func tracingLogsNoToken() async throws {
        let server = try CLIServer()
        let run = try await server.stratus("long-lived", "show", "3C6B1E2A", "--log-level", "trace")
        #expect(!run.errorOutput.isEmpty)
        #expect(!server.leaksASecret(run.output + run.errorOutput))
    }

    @Test func backendAndServerTogetherAreAUsageError() async throws {
        let server = try CLIServer()
        let run = try await server.stratus("zones", "list", "--backend", "memory:")
        #expect(run.status == 64)
        #expect(
            run.errorOutput
                == "error: --backend cannot be used with --server or --credentials-file: a container is either over a local backend or remote on a stratusd\n"
        )
    }

    @Test func configShowsTheServerAndNeverAToken() async throws {
        let server = try CLIServer()
        let text = try await server.stratus("config")
        #expect(text.status == 0, "\(text.errorOutput)")
        #expect(text.lines.contains("server              \(server.url)  (--server)"), "\(text.output)")
        #expect(text.lines.contains("credentials file    \(server.credentialsFile)  (--credentials-file)"))
        #expect(text.lines.contains("environment         development  (the credentials file)"))
        #expect(!text.output.contains("\nbackend "))
        let json = try await server.stratus("config", "--json")
        let report = try #require(try StratusCLITests.json(json.output) as? [String: Any])
        #expect(report["server"] as? String == server.url)
        #expect(report["backend"] == nil)
        #expect(!server.leaksASecret(text.output + text.errorOutput + json.output + json.errorOutput))
    }

    @Test func aMalformedCredentialsFileIsAConfigurationError() async throws {
        let server = try CLIServer()
        let bad = server.workspace.appendingPathComponent("bad.json").path
        try #"{"apiToken": "\#(server.apiToken)", "webAuthToken": 7}"#.write(
            toFile: bad, atomically: true, encoding: .utf8)
        let run = try await StratusExecutable.run(
            ["zones", "list", "--server", server.url, "--credentials-file", bad], in: server.workspace)
        #expect(run.status == 78)
        #expect(
            run.errorOutput.hasPrefix(
                "error: configuration: the credentials file '\(bad)' ('serverCredentialsFile', from --credentials-file) has a 'webAuthToken' that is not a non-empty string"
            ), "\(run.errorOutput)")
        #expect(!server.leaksASecret(run.errorOutput))
    }

    @Test(.timeLimit(.minutes(5))) func anUnreachableServerIsNetworkUnavailable() async throws {
        let server = try CLIServer()
        let run = try await StratusExecutable.run(
            ["zones", "list", "--server", "http://127.0.0.1:1", "--credentials-file", server.credentialsFile],
            in: server.workspace)
        #expect(run.status == 1)
        #expect(run.errorOutput.hasPrefix("error: networkUnavailable: "), "\(run.errorOutput)")
        #expect(!server.leaksASecret(run.errorOutput))
    }

    @Test func noOptionTakesAToken() async throws {
        let server = try CLIServer()
        let help = try await server.stratus("zones", "list", "--help")
        #expect(help.output.contains("--server <url>") && help.output.contains("--credentials-file <path>"))
        #expect(!help.output.lowercased().contains("token <"))
        let run = try await server.stratus("zones", "list", "--api-token", server.apiToken)
        #expect(run.status == 64)
    }
}
