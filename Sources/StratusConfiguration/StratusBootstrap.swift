import Foundation
import Stratus
public import StratusBackend
import StratusInMemory
import StratusLMDB
public import StratusRemote
import StratusSQLite

/// Start-up from configuration: the one line an app adds to choose its backend in a file or
/// the environment instead of in code.
///
/// ```swift
/// import StratusConfiguration
///
/// try await StratusBootstrap.configureDefaultContainers()
/// let container = CKContainer.default()   // or CKContainer(identifier:), unchanged CloudKit code
/// ```
///
/// Backends other than the built-in ones (SQLite, LMDB and in-memory) join by registering their
/// provider first — `BackendRegistry.shared.register(MyBackendProvider())` — or by passing
/// it in `providers`.
///
/// With `server` configured (`STRATUS_SERVER` and `STRATUS_SERVER_CREDENTIALS_FILE`, decision
/// 0016.4) the same line makes the default containers remote containers on that `stratusd`,
/// and no backend is opened.
public enum StratusBootstrap {
    /// The providers of the backends built into this module: SQLite (`sqlite:`), LMDB
    /// (`lmdb:`) and in-memory (`memory:`).
    public static var builtInProviders: [any BackendProvider] {
        [SQLiteBackendProvider(), LMDBBackendProvider(), InMemoryBackendProvider()]
    }

    /// Registers the built-in providers in `registry`, keeping any provider already registered
    /// for their schemes (so a custom `sqlite` provider registered earlier stays).
    public static func registerBuiltInProviders(in registry: BackendRegistry = .shared) {
        for provider in builtInProviders { registry.register(provider, replacing: false) }
    }

    /// Reads the configuration, opens its backend and registers it as the default backend of
    /// `CKContainer(identifier:)` and `CKContainer.default()`, under the configured container
    /// identifier and in the configured environment (`environment`, decision 0020).
    ///
    /// With nothing configured this is SQLite at `./.stratus/stratus.sqlite`, and the
    /// directory is created. With `server` configured it instead reads the credentials file
    /// and registers the server (`CKContainer.registerDefault(server:identifier:)`): those
    /// containers are then remote containers, and nothing is sent before their first operation.
    ///
    /// - Parameters:
    ///   - providers: more backend providers to register first (replacing built-in ones of the
    ///     same scheme), such as a custom backend's.
    ///   - environment: the environment variables to read (the process's by default).
    ///   - configFile: a configuration file to read instead of `STRATUS_CONFIG`'s.
    ///   - registry: where providers are registered and looked up.
    /// - Returns: the settings, and the opened backend or the registered server.
    /// - Throws: `StratusSettingsError` or `BackendConfigurationError`, whose messages say what
    ///   is wrong and what is accepted (never a credential).
    @discardableResult
    public static func configureDefaultContainers(
        providers: [any BackendProvider] = [],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        configFile: String? = nil,
        registry: BackendRegistry = .shared
    ) async throws -> ConfiguredBackend {
        for provider in providers { registry.register(provider) }
        registerBuiltInProviders(in: registry)
        let settings = try await StratusSettings.load(environment: environment, configFile: configFile)
        if let server = try settings.remoteServer() {
            CKContainer.registerDefault(server: server, identifier: settings.containerIdentifier)
            return ConfiguredBackend(settings: settings, backend: nil, server: server)
        }
        let backend = try openBackend(for: settings, registry: registry)
        CKContainer.registerDefault(
            backend, identifier: settings.containerIdentifier,
            environment: settings.environment == .production ? .production : .development,
            assetCache: AssetCachePolicy(
                maximumBytes: settings.remote.assetCacheBytes ?? AssetCachePolicy.defaultMaximumBytes))
        return ConfiguredBackend(settings: settings, backend: backend, server: nil)
    }

    /// Opens the backend `settings` name, through `registry`. For the embedded default, first
    /// creates the data directory.
    ///
    /// - Throws: `BackendConfigurationError`, or `StratusSettingsError` when the data directory
    ///   cannot be created.
    public static func openBackend(
        for settings: StratusSettings, registry: BackendRegistry = .shared
    ) throws -> any DatabaseBackend {
        if settings.usesDefaultBackend {
            do {
                try FileManager.default.createDirectory(
                    atPath: settings.dataDirectory, withIntermediateDirectories: true)
            } catch {
                throw StratusSettingsError(
                    "cannot create the data directory '\(settings.dataDirectory)': \(error.localizedDescription)")
            }
        }
        return try registry.makeBackend(for: settings.backend)
    }
}

/// What ``StratusBootstrap/configureDefaultContainers(providers:environment:configFile:registry:)``
/// set up: exactly one of ``backend`` (embedded default containers) and ``server`` (remote
/// ones, when `server` is configured) is set.
public struct ConfiguredBackend: Sendable {
    /// The settings that were read.
    public let settings: StratusSettings
    /// The backend that was opened and registered as the default; `nil` when the default
    /// containers are remote (``server``). The app closes it when it is done.
    public let backend: (any DatabaseBackend)?
    /// The `stratusd` registered as the default (`server`), whose containers are remote; `nil`
    /// when a backend was opened.
    public let server: RemoteServer?
}
