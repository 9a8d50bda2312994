import ArgumentParser
import StratusBackend
import StratusConfiguration

/// `stratus config`
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Show the configuration in effect and the registered backends.",
        discussion: """
            Checks the backend URL (scheme and options) without opening it. See the Configuration \
            article of the StratusConfiguration documentation.
            """)

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let settings = try await Session.settings(for: options)
        let registry = Session.registry
        _ = try registry.provider(for: settings.backend)
        let origin = { (key: String) in settings.origins[key] ?? "default" }
        if options.json {
            try Output.json(
                ConfigReport(
                    configFile: settings.configFile, backend: settings.backend.description,
                    dataDir: settings.dataDirectory, container: settings.containerIdentifier,
                    origins: settings.origins, schemes: registry.schemes))
            return
        }
        Output.line(
            "configuration file  \(settings.configFile ?? "none (STRATUS_CONFIG, or ./\(StratusSettings.defaultConfigFile))")"
        )
        Output.line("backend             \(settings.backend)  (\(origin("backend")))")
        Output.line("data directory      \(settings.dataDirectory)  (\(origin("dataDir")))")
        Output.line("container           \(settings.containerIdentifier)  (\(origin("container")))")
        Output.line("")
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
    var backend: String
    var dataDir: String
    var container: String
    var origins: [String: String]
    var schemes: [String]
}
