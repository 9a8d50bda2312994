import Foundation
import Stratus
import StratusBackend
import StratusConfiguration
import StratusPostgreSQL
import StratusRemote

/// The configured backend or server, opened for one command: settings from the configuration
/// file and the environment, overridden by `--backend`, `--server`, `--credentials-file`,
/// `--container` and `--config`.
struct Session {
    let settings: StratusSettings
    /// The opened backend; `nil` when the container is remote (``server``).
    let backend: (any DatabaseBackend)?
    /// The `stratusd` the container is remote on (`--server`, `STRATUS_SERVER`), if any.
    let server: RemoteServer?
    let container: CKContainer
    let database: CKDatabase
    let options: GlobalOptions

    /// What the container's databases live on, for messages: the server (never its
    /// credentials) or the backend URL.
    var target: String { server?.description ?? settings.backend.description }

    /// The registry the tool resolves backend URLs with: every provider the tool links. (The
    /// PostgreSQL provider is registered here; LMDB's is built in.)
    static var registry: BackendRegistry {
        StratusBootstrap.registerBuiltInProviders(in: .shared)
        BackendRegistry.shared.register(PostgreSQLBackendProvider(), replacing: false)
        return .shared
    }

    /// The settings `options` select, without opening anything (or reading credentials).
    ///
    /// The command line wins over the configuration: `--server` replaces a configured backend,
    /// `--backend` a configured server; both at once are refused.
    static func settings(for options: GlobalOptions) async throws -> StratusSettings {
        // --log-level overrides STRATUS_LOG_LEVEL, so a bad value there cannot fail the command.
        var environment = ProcessInfo.processInfo.environment
        if options.logLevel != nil { environment["STRATUS_LOG_LEVEL"] = nil }
        var settings = try await StratusSettings.load(
            environment: environment, configFile: options.configFile, overrides: try overrides(for: options))
        if let backend = options.backend {
            settings.configuredBackend = try BackendURL(backend)
            settings.origins["backend"] = "--backend"
        }
        if options.server != nil { settings.origins["server"] = "--server" }
        if options.credentialsFile != nil { settings.origins["serverCredentialsFile"] = "--credentials-file" }
        if let container = options.container {
            settings.containerIdentifier = container
            settings.origins["container"] = "--container"
        }
        CLILogging.apply(settings)
        return settings
    }

    /// The configuration keys `--server`, `--credentials-file` and `--backend` set or unset.
    private static func overrides(for options: GlobalOptions) throws -> [String: String] {
        var overrides: [String: String] = [:]
        if options.backend != nil {
            guard options.server == nil, options.credentialsFile == nil else {
                throw CLIError(
                    "--backend cannot be used with --server or --credentials-file: a container is either over a local backend or remote on a stratusd",
                    exitCode: CLIError.usage)
            }
            overrides["server"] = ""
            overrides["serverCredentialsFile"] = ""
        }
        if let server = options.server {
            overrides["server"] = server
            overrides["backend"] = ""
        }
        if let file = options.credentialsFile { overrides["serverCredentialsFile"] = file }
        return overrides
    }

    /// Opens the backend or server `options` select, runs `body` with it, and closes it.
    static func with<T>(_ options: GlobalOptions, _ body: (Session) async throws -> T) async throws -> T {
        let settings = try await settings(for: options)
        if var server = try settings.remoteServer() {
            if let environment = options.environment {
                server.environment = environment == .production ? .production : .development
            }
            let container = CKContainer(identifier: settings.containerIdentifier, server: server)
            return try await body(
                Session(
                    settings: settings, backend: nil, server: server, container: container,
                    database: container.database(with: options.database.scope), options: options))
        }
        let backend = try StratusBootstrap.openBackend(for: settings, registry: registry)
        let container = CKContainer(
            identifier: settings.containerIdentifier, backend: backend,
            environment: options.environment?.environment
                ?? (settings.environment == .production ? .production : .development))
        let session = Session(
            settings: settings, backend: backend, server: nil, container: container,
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
