import ArgumentParser
import Foundation
import StratusBackend
import StratusConfiguration
import StratusPostgreSQL

/// Which store `stratusd` serves or administers: the configured one (`STRATUS_BACKEND`, the
/// configuration file, or SQLite in `./.stratus/`), or `--backend`'s.
struct StoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The backend URL, overriding STRATUS_BACKEND and the configuration file.", valueName: "url"))
    var backend: String?

    @Option(name: .customLong("config"), help: ArgumentHelp("A configuration file to read.", valueName: "file"))
    var configFile: String?

    /// The settings these options select.
    func settings() async throws -> StratusSettings {
        var environment = ProcessInfo.processInfo.environment
        if let backend { environment["STRATUS_BACKEND"] = backend }
        environment["STRATUS_LOG_LEVEL"] = nil
        return try await StratusSettings.load(environment: environment, configFile: configFile)
    }

    /// Opens the backend `settings` name, every built-in scheme and PostgreSQL registered.
    func open(_ settings: StratusSettings) throws -> any DatabaseBackend {
        let registry = BackendRegistry.shared
        StratusBootstrap.registerBuiltInProviders(in: registry)
        registry.register(PostgreSQLBackendProvider(), replacing: false)
        return try StratusBootstrap.openBackend(for: settings, registry: registry)
    }
}
