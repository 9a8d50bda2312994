import ArgumentParser
import StratusBackend
import StratusConfiguration

/// `stratus config`
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Show the configuration in effect and the registered backends.",
        discussion: """
            Checks the backend URL (scheme and options) without opening it, or, with a server, reads \
            its credentials file without connecting (and never shows a token). See the Configuration \
            article of the StratusConfiguration documentation.
            """)

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let settings = try await Session.settings(for: options)
        let registry = Session.registry
        let server = try settings.remoteServer()
        if server == nil { _ = try registry.provider(for: settings.backend) }
        let origin = { (key: String) in settings.origins[key] ?? "default" }
        if options.json {
            try Output.json(
                ConfigReport(
                    configFile: settings.configFile, backend: server == nil ? settings.backend.description : nil,
                    server: server?.url.absoluteString, serverEnvironment: server?.environment.rawValue,
                    serverCredentialsFile: settings.remote.credentialsFile, dataDir: settings.dataDirectory,
                    container: settings.containerIdentifier,
                    environment: server == nil ? settings.environment.rawValue : nil, origins: settings.origins,
                    schemes: registry.schemes))
            return
        }
        Output.line(
            "configuration file  \(settings.configFile ?? "none (STRATUS_CONFIG, or ./\(StratusSettings.defaultConfigFile))")"
        )
        if let server, let file = settings.remote.credentialsFile {
            Output.line("server              \(server.url.absoluteString)  (\(origin("server")))")
            Output.line("credentials file    \(file)  (\(origin("serverCredentialsFile")))")
            Output.line("environment         \(server.environment.rawValue)  (the credentials file)")
        } else {
            Output.line("backend             \(settings.backend)  (\(origin("backend")))")
            Output.line("environment         \(settings.environment.rawValue)  (\(origin("environment")))")
        }
        Output.line("data directory      \(settings.dataDirectory)  (\(origin("dataDir")))")
        Output.line("container           \(settings.containerIdentifier)  (\(origin("container")))")
        Output.line("")
        printBackends(registry)
    }

    /// Every registered backend with its URL forms and options.
    private func printBackends(_ registry: BackendRegistry) {
        Output.line("backends:")
        for provider in registry.providers {
            Output.line("  \(provider.scheme)  \(provider.summary)")
            Output.line("    URLs: " + provider.examples.joined(separator: "  "))
            for option in provider.options {
                Output.line(
                    "    ?\(option.name)=\(option.accepted)  (default \(option.defaultValue)): \(option.summary)")
            }
        }
    }
}

/// `stratus config --json`.
struct ConfigReport: Encodable {
    var configFile: String?
    /// The backend URL; absent when the container is remote.
    var backend: String?
    /// The server's URL, when the container is remote.
    var server: String?
    /// The container environment the credentials file names.
    var serverEnvironment: String?
    /// The credentials file's path (never its contents).
    var serverCredentialsFile: String?
    var dataDir: String
    var container: String
    /// The environment of the container over the backend; absent when the container is remote
    /// (its environment is then `serverEnvironment`).
    var environment: String?
    var origins: [String: String]
    var schemes: [String]
}
