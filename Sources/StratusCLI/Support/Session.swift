import Foundation
import Stratus
import StratusBackend
import StratusConfiguration
import StratusPostgreSQL

/// The configured backend, opened for one command: settings from the configuration file and
/// the environment, overridden by `--backend`, `--container` and `--config`.
struct Session {
    let settings: StratusSettings
    let backend: any DatabaseBackend
    let container: CKContainer
    let database: CKDatabase
    let options: GlobalOptions

    /// The registry the tool resolves backend URLs with: every provider the tool links. (The
    /// PostgreSQL provider is registered here; LMDB's is built in.)
    static var registry: BackendRegistry {
        StratusBootstrap.registerBuiltInProviders(in: .shared)
        BackendRegistry.shared.register(PostgreSQLBackendProvider(), replacing: false)
        return .shared
    }

    /// The settings `options` select, without opening anything.
    static func settings(for options: GlobalOptions) async throws -> StratusSettings {
        // --log-level overrides STRATUS_LOG_LEVEL, so a bad value there cannot fail the command.
        var environment = ProcessInfo.processInfo.environment
        if options.logLevel != nil { environment["STRATUS_LOG_LEVEL"] = nil }
        var settings = try await StratusSettings.load(environment: environment, configFile: options.configFile)
        if let backend = options.backend {
            settings.configuredBackend = try BackendURL(backend)
            settings.origins["backend"] = "--backend"
        }
        if let container = options.container {
            settings.containerIdentifier = container
            settings.origins["container"] = "--container"
        }
        CLILogging.apply(settings)
        return settings
    }

    /// Opens the backend `options` select, runs `body` with it, and closes it.
    static func with<T>(_ options: GlobalOptions, _ body: (Session) async throws -> T) async throws -> T {
        let settings = try await settings(for: options)
        let backend = try StratusBootstrap.openBackend(for: settings, registry: registry)
        let container = CKContainer(identifier: settings.containerIdentifier, backend: backend)
        let session = Session(
            settings: settings, backend: backend, container: container,
            database: container.database(with: options.database.scope), options: options)
        do {
            let result = try await body(session)
            try? backend.close()
            return result
        } catch {
            try? backend.close()
            throw error
        }
    }
}
