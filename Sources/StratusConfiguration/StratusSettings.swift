public import Configuration
public import StratusBackend

/// Which backend and container Stratus uses, as configured: read from a JSON file and
/// `STRATUS_*` environment variables by ``load(environment:configFile:overrides:overridesOrigin:)``, or from any
/// `ConfigReader` by ``init(config:)``.
///
/// | Key | Environment variable | Default |
/// |---|---|---|
/// | `backend` | `STRATUS_BACKEND` | SQLite in the data directory: `sqlite:.stratus/stratus.sqlite` |
/// | `dataDir` | `STRATUS_DATA_DIR` | `.stratus` (relative to the current directory) |
/// | `container` | `STRATUS_CONTAINER` | `iCloud.default` |
/// | `environment` | `STRATUS_ENVIRONMENT` | `development` (or `production`: the schema is fixed, decision 0020) |
/// | `logLevel` | `STRATUS_LOG_LEVEL` | not set: the app's logging set-up decides |
/// | `server` | `STRATUS_SERVER` | not set: containers are embedded, over `backend` |
/// | `serverCredentialsFile` | `STRATUS_SERVER_CREDENTIALS_FILE` | not set; required with `server` |
/// | `remoteAssetCacheBytes` | `STRATUS_REMOTE_ASSET_CACHE_BYTES` | `536870912` (512 MiB) |
/// | — | `STRATUS_CONFIG` | `stratus.json` in the current directory, if it exists |
///
/// `stratusd`'s keys (`serverHost`, `serverPort`, `serverTlsCertificate`, `metricsPort`, …) are
/// in ``server``; see ``StratusServerSettings``. The keys of a remote default container
/// (`server`, `serverCredentialsFile`, decision 0016.4) are in ``remote``; see
/// ``StratusRemoteSettings``.
///
/// See `Sources/StratusConfiguration/StratusConfiguration.docc/Configuration.md`.
public struct StratusSettings: Sendable, Hashable {
    /// The data directory when none is configured: `.stratus`, relative to the current
    /// directory.
    public static let defaultDataDirectory = ".stratus"
    /// The file name of the embedded default store in the data directory.
    public static let defaultStoreFileName = "stratus.sqlite"
    /// The default container's identifier when none is configured.
    public static let defaultContainerIdentifier = "iCloud.default"
    /// The configuration file read when `STRATUS_CONFIG` is not set, if it exists.
    public static let defaultConfigFile = "stratus.json"

    /// The backend URL set by the `backend` key, or `nil` for the embedded default.
    public var configuredBackend: BackendURL?
    /// The data directory (`dataDir`): where the embedded default store lives.
    public var dataDirectory: String
    /// The identifier of the default container (`container`).
    public var containerIdentifier: String
    /// The environment of the default containers over a backend (`environment`, decision
    /// 0020): `development` grows the schema as records are saved, `production` keeps to the
    /// schema imported for it. (A remote container's environment is its credentials'.)
    public var environment: ContainerEnvironment = .development
    /// The configuration file that was read, if any.
    public var configFile: String?
    /// The log level (`logLevel`): `trace`, `debug`, `info`, `notice`, `warning`, `error` or
    /// `critical`, or `nil` when not configured.
    ///
    /// Stratus never bootstraps the `LoggingSystem`: an app that reads this setting passes it
    /// to the handler it bootstraps (the `stratus` tool does; see `Docs/Logging.md`).
    public var logLevel: Logger.Level?
    /// `stratusd`'s listeners and limits (`serverHost`, `serverPort`, `metricsPort`, …).
    public var server: StratusServerSettings
    /// The `stratusd` the default containers are remote containers on (`server`,
    /// `serverCredentialsFile`), if one is configured.
    public var remote: StratusRemoteSettings
    /// Where each key's value came from: `environment variable STRATUS_BACKEND`,
    /// `stratus.json`, `default`, … keyed by configuration key.
    public var origins: [String: String]

    /// Settings with the given values; every argument has a default.
    public init(
        backend: BackendURL? = nil, dataDirectory: String = StratusSettings.defaultDataDirectory,
        containerIdentifier: String = StratusSettings.defaultContainerIdentifier, logLevel: Logger.Level? = nil
    ) {
        self.configuredBackend = backend
        self.dataDirectory = dataDirectory
        self.containerIdentifier = containerIdentifier
        self.logLevel = logLevel
        self.server = StratusServerSettings()
        self.remote = StratusRemoteSettings()
        self.configFile = nil
        self.origins = [:]
    }

    /// The backend to use: the configured one, or the embedded default, SQLite at
    /// `<dataDirectory>/stratus.sqlite`.
    public var backend: BackendURL {
        configuredBackend ?? Self.defaultBackend(inDataDirectory: dataDirectory)
    }

    /// Whether no backend is configured, so ``backend`` is the embedded default.
    public var usesDefaultBackend: Bool { configuredBackend == nil }

    /// Whether the default containers are remote containers on a `stratusd` (`server` is set),
    /// so no backend is opened.
    public var usesRemoteServer: Bool { remote.url != nil }

    /// The embedded default in `directory`: `sqlite:<directory>/stratus.sqlite`.
    public static func defaultBackend(inDataDirectory directory: String) -> BackendURL {
        var directory = directory.isEmpty ? "." : directory
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        let path = (directory == "/" ? "" : directory) + "/" + defaultStoreFileName
        return BackendURL(scheme: "sqlite", authority: path.hasPrefix("/") ? .init(host: "") : nil, path: path)
    }

    /// Settings read from `config`, with these keys (relative to the reader's scope; an empty
    /// value counts as unset):
    ///
    /// - `backend` (string, optional): the backend URL, such as `sqlite:///var/lib/app/store.sqlite`.
    ///   Default: SQLite at `<dataDir>/stratus.sqlite`.
    /// - `dataDir` (string, default `.stratus`): the data directory of the embedded default.
    /// - `container` (string, default `iCloud.default`): the default container's identifier.
    /// - `environment` (string, default `development`): `development` or `production`, the
    ///   environment of the default containers over a backend (decision 0020).
    /// - `logLevel` (string, optional): a log level, see ``logLevel(named:)``.
    /// - `stratusd`'s keys: see ``StratusServerSettings/init(config:)``.
    /// - `server` and `serverCredentialsFile`: see ``StratusRemoteSettings/init(config:)``.
    ///   `server` together with `backend` is refused: a default container is either remote or
    ///   over a local backend.
    ///
    /// - Throws: ``StratusSettingsError`` when a key holds a value of the wrong type or out of
    ///   range, or `server` is set with `backend`; a `BackendConfigurationError` when `backend`
    ///   is not a backend URL.
    public init(config: ConfigReader) throws {
        self.init()
        if let text = try Self.string(config, SettingsKey.backend) {
            configuredBackend = try BackendURL(text)
        }
        if let text = try Self.string(config, SettingsKey.dataDir) {
            dataDirectory = text
        }
        if let text = try Self.string(config, SettingsKey.container) {
            containerIdentifier = text
        }
        if let text = try Self.string(config, SettingsKey.environment) {
            guard let named = ContainerEnvironment(rawValue: text) else {
                throw StratusSettingsError(
                    "invalid environment '\(text)'; accepted: \(SettingsKey.environment.summary)",
                    key: SettingsKey.environment.rawValue)
            }
            environment = named
        }
        if let text = try Self.string(config, SettingsKey.logLevel) {
            logLevel = try Self.logLevel(named: text)
        }
        server = try StratusServerSettings(config: config)
        remote = try StratusRemoteSettings(config: config)
        if remote.url != nil && configuredBackend != nil {
            throw StratusSettingsError(
                "'server' and 'backend' are both set: a default container is either remote, on the stratusd 'server' names, or over the local 'backend'; remove one of them",
                key: SettingsKey.server.rawValue, otherKey: SettingsKey.backend.rawValue)
        }
    }

    /// The log levels, by name, from the most to the least detailed.
    public static let logLevelNames = Logger.Level.allCases.map(\.rawValue)

    /// The log level named `name`: `trace`, `debug`, `info`, `notice`, `warning`, `error` or
    /// `critical` (case-insensitive).
    ///
    /// - Throws: ``StratusSettingsError`` naming the accepted values.
    public static func logLevel(named name: String) throws -> Logger.Level {
        guard let level = Logger.Level(rawValue: name.lowercased()) else {
            throw StratusSettingsError(
                "invalid log level '\(name)'; accepted: \(logLevelNames.joined(separator: ", "))")
        }
        return level
    }

    /// The string at `key`, `nil` when absent or empty, and an error when the key holds
    /// another type (the reader's string accessors return `nil` for both).
    static func string(_ config: ConfigReader, _ key: SettingsKey) throws -> String? {
        if let value = config.string(forKey: ConfigKey(key.rawValue)) { return value.isEmpty ? nil : value }
        if isSet(config, key) {
            throw StratusSettingsError("'\(key.rawValue)' must be a string (\(key.summary))", key: key.rawValue)
        }
        return nil
    }

    /// Whether `config` holds a non-empty value of any type at `key`.
    static func isSet(_ config: ConfigReader, _ key: SettingsKey) -> Bool {
        let name = ConfigKey(key.rawValue)
        if let text = config.string(forKey: name) { return !text.isEmpty }
        return config.int(forKey: name) != nil || config.double(forKey: name) != nil
            || config.bool(forKey: name) != nil || config.stringArray(forKey: name) != nil
    }
}

/// The configuration keys of ``StratusSettings``.
enum SettingsKey: String, CaseIterable {
    case backend, dataDir, container, environment, logLevel
    // A remote default container (decision 0016.4).
    case server, serverCredentialsFile, remoteAssetCacheBytes
    case serverHost, serverPort, serverTlsCertificate, serverTlsKey, serverMaxBodyBytes, serverMaxAssetBytes
    case serverMaxConnections, serverMaxBufferedBodyBytes
    case metricsHost, metricsPort, metricsBearerTokenFile
    // Credentials and notification logs (decisions 0013, 0014).
    case authSignInUrl, authSessionTtlSeconds, authS2sMaxAgeSeconds, authReplayGuard
    case notificationsRetentionSeconds, notificationsMaxPerUser

    /// The environment variable that overrides the key: `STRATUS_` and the key in upper snake
    /// case (`serverTlsKey` → `STRATUS_SERVER_TLS_KEY`), as swift-configuration derives it.
    var environmentVariable: String {
        var name = "STRATUS_"
        for character in rawValue {
            if character.isUppercase { name.append("_") }
            name += character.uppercased()
        }
        return name
    }

    /// What the key holds, for error messages.
    var summary: String {
        switch self {
        case .backend: return "a backend URL such as sqlite:///path/store.sqlite"
        case .dataDir: return "a directory path"
        case .container: return "a container identifier such as iCloud.com.example.app"
        case .environment: return "development or production"
        case .logLevel: return "a log level: " + StratusSettings.logLevelNames.joined(separator: ", ")
        case .server: return "the http or https URL of a stratusd, such as https://cloud.example.com"
        case .serverCredentialsFile:
            return
                #"the path of a JSON file {"apiToken": "…", "webAuthToken": "…"} (webAuthToken optional; "environment": "development" or "production" optional), or {"serverKeyID": "…", "serverPrivateKeyFile": "key.pem"} for a server-to-server key"#
        case .serverHost, .metricsHost: return "a host name or IP address to listen on, such as 127.0.0.1"
        case .serverPort, .metricsPort: return "a port number from 0 to 65535; 0 picks a free one"
        case .serverTlsCertificate: return "the path of a PEM certificate chain"
        case .serverTlsKey: return "the path of the certificate's PEM private key"
        case .serverMaxBodyBytes, .serverMaxAssetBytes, .serverMaxBufferedBodyBytes, .remoteAssetCacheBytes:
            return "a number of bytes, at least 1"
        case .serverMaxConnections: return "a number of connections, at least 1"
        case .metricsBearerTokenFile: return "the path of a file holding the token a scrape must present"
        default: return authAndNotificationSummary
        }
    }

    /// What the credential and notification-log keys hold, for error messages.
    private var authAndNotificationSummary: String {
        switch self {
        case .authSignInUrl: return "an absolute http or https URL, such as https://example.com/sign-in"
        case .authSessionTtlSeconds: return "a number of seconds from 1 to 31536000 (365 days)"
        case .authS2sMaxAgeSeconds: return "a number of seconds from 1 to 600"
        case .authReplayGuard: return "backend or memory"
        case .notificationsRetentionSeconds: return "a number of seconds from 1 to 31536000 (365 days)"
        case .notificationsMaxPerUser: return "a number of entries from 1 to 1000000"
        default: return ""
        }
    }
}

/// A problem with the configuration file or a configuration value.
public struct StratusSettingsError: Error, Sendable, CustomStringConvertible {
    /// What is wrong and how to fix it.
    public var message: String
    /// The configuration key whose value is wrong, if one is.
    public var key: String?
    /// A second key the value of ``key`` conflicts with (`backend` for `server`), if any.
    var otherKey: String?

    /// An error saying `message`, about `key` if given.
    public init(_ message: String, key: String? = nil) {
        self.message = message
        self.key = key
    }

    /// An error saying `message`, about `key`'s value conflicting with `otherKey`'s.
    init(_ message: String, key: String, otherKey: String) {
        self.init(message, key: key)
        self.otherKey = otherKey
    }

    /// The message.
    public var description: String { message }
}
