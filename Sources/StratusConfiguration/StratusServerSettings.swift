public import Configuration

/// `stratusd`'s listeners and limits, as configured (``StratusSettings/server``).
///
/// | Key | Environment variable | Default |
/// |---|---|---|
/// | `serverHost` | `STRATUS_SERVER_HOST` | `127.0.0.1` |
/// | `serverPort` | `STRATUS_SERVER_PORT` | `8080` |
/// | `serverTlsCertificate` | `STRATUS_SERVER_TLS_CERTIFICATE` | not set: plain HTTP |
/// | `serverTlsKey` | `STRATUS_SERVER_TLS_KEY` | not set: plain HTTP |
/// | `serverMaxBodyBytes` | `STRATUS_SERVER_MAX_BODY_BYTES` | 16 MiB |
/// | `serverMaxAssetBytes` | `STRATUS_SERVER_MAX_ASSET_BYTES` | 50 MiB |
/// | `serverMaxConnections` | `STRATUS_SERVER_MAX_CONNECTIONS` | 1024 |
/// | `serverMaxBufferedBodyBytes` | `STRATUS_SERVER_MAX_BUFFERED_BODY_BYTES` | 256 MiB |
/// | `metricsHost` | `STRATUS_METRICS_HOST` | `127.0.0.1` |
/// | `metricsPort` | `STRATUS_METRICS_PORT` | `9464` |
/// | `metricsBearerTokenFile` | `STRATUS_METRICS_BEARER_TOKEN_FILE` | not set |
///
/// The credential keys (`authSignInUrl`, `authSessionTtlSeconds`, …) are in ``auth``, the
/// notification log's (`notificationsRetentionSeconds`, `notificationsMaxPerUser`) in
/// ``notifications``.
///
/// Loading checks types and ranges only; `stratusd` checks the files and the rules that join
/// keys (a certificate needs its key; metrics off loopback need a token) when it starts, so a
/// tool that reads the same configuration never fails over a file only the server can read.
public struct StratusServerSettings: Sendable, Hashable {
    /// The API listener's host when none is configured: this machine only.
    public static let defaultHost = "127.0.0.1"
    /// The API listener's port when none is configured.
    public static let defaultPort = 8080
    /// The largest request body accepted when none is configured: 16 MiB.
    public static let defaultMaxBodyBytes = 16 * 1024 * 1024
    /// The largest asset upload accepted when none is configured: 50 MiB, at least Apple's
    /// 50 MB ("Data Size Limits", CloudKit Web Services Reference).
    public static let defaultMaxAssetBytes = 50 * 1024 * 1024
    /// The most connections open at once when none is configured.
    public static let defaultMaxConnections = 1024
    /// The bytes of request bodies held at once when none is configured: 256 MiB.
    public static let defaultMaxBufferedBodyBytes = 256 * 1024 * 1024
    /// The metrics listener's host when none is configured: loopback (decision 0013.7).
    public static let defaultMetricsHost = "127.0.0.1"
    /// The metrics listener's port when none is configured (Prometheus's usual exporter port).
    public static let defaultMetricsPort = 9464

    /// The host the API listens on (`serverHost`).
    public var host: String
    /// The port the API listens on (`serverPort`); 0 picks a free one.
    public var port: Int
    /// The PEM certificate chain served over TLS (`serverTlsCertificate`); `nil` for plain HTTP.
    public var tlsCertificateFile: String?
    /// The certificate's PEM private key (`serverTlsKey`); `nil` for plain HTTP.
    public var tlsKeyFile: String?
    /// The largest request body the server reads, in bytes (`serverMaxBodyBytes`).
    public var maxBodyBytes: Int
    /// The largest asset upload the server takes, in bytes (`serverMaxAssetBytes`); upload
    /// URLs are not held to ``maxBodyBytes``.
    public var maxAssetBytes: Int
    /// The most connections the API listener keeps open at once (`serverMaxConnections`).
    public var maxConnections: Int
    /// The bytes of request bodies, asset uploads included, the server holds at once across
    /// every connection (`serverMaxBufferedBodyBytes`); never less than the largest single body.
    public var maxBufferedBodyBytes: Int
    /// The host the metrics listener binds (`metricsHost`).
    public var metricsHost: String
    /// The metrics listener's port (`metricsPort`); 0 picks a free one.
    public var metricsPort: Int
    /// A file holding the bearer token a metrics scrape must present (`metricsBearerTokenFile`).
    public var metricsBearerTokenFile: String?

    // Credentials and notification logs (decisions 0013, 0014): their keys and checks live in
    // StratusAuthSettings.swift and StratusNotificationSettings.swift.

    /// Sign-in URL, session lifetime, signed-request window, replay guard (`auth…` keys).
    public var auth = StratusAuthSettings()
    /// How long and how much of each user's notification log is kept (`notifications…` keys).
    public var notifications = StratusNotificationSettings()

    /// Settings with the defaults above.
    public init() {
        host = Self.defaultHost
        port = Self.defaultPort
        maxBodyBytes = Self.defaultMaxBodyBytes
        maxAssetBytes = Self.defaultMaxAssetBytes
        maxConnections = Self.defaultMaxConnections
        maxBufferedBodyBytes = Self.defaultMaxBufferedBodyBytes
        metricsHost = Self.defaultMetricsHost
        metricsPort = Self.defaultMetricsPort
    }

    /// Settings read from `config`: the keys in the table above, relative to the reader's
    /// scope. Numbers may be JSON numbers or strings of digits (environment variables are
    /// strings); an empty value counts as unset.
    ///
    /// - Throws: ``StratusSettingsError`` naming the key when a value has the wrong type or is
    ///   out of range.
    public init(config: ConfigReader) throws {
        self.init()
        host = try StratusSettings.string(config, .serverHost) ?? host
        port = try Self.integer(config, .serverPort, in: 0...65535) ?? port
        tlsCertificateFile = try StratusSettings.string(config, .serverTlsCertificate)
        tlsKeyFile = try StratusSettings.string(config, .serverTlsKey)
        maxBodyBytes = try Self.integer(config, .serverMaxBodyBytes, in: 1...Int.max) ?? maxBodyBytes
        maxAssetBytes = try Self.integer(config, .serverMaxAssetBytes, in: 1...Int.max) ?? maxAssetBytes
        maxConnections = try Self.integer(config, .serverMaxConnections, in: 1...Int.max) ?? maxConnections
        maxBufferedBodyBytes =
            try Self.integer(config, .serverMaxBufferedBodyBytes, in: 1...Int.max) ?? maxBufferedBodyBytes
        metricsHost = try StratusSettings.string(config, .metricsHost) ?? metricsHost
        metricsPort = try Self.integer(config, .metricsPort, in: 0...65535) ?? metricsPort
        metricsBearerTokenFile = try StratusSettings.string(config, .metricsBearerTokenFile)
        auth = try StratusAuthSettings(config: config)
        notifications = try StratusNotificationSettings(config: config)
    }

    /// The whole number at `key` (a JSON number or a string of digits), `nil` when unset.
    static func integer(_ config: ConfigReader, _ key: SettingsKey, in range: ClosedRange<Int>) throws -> Int? {
        let value: Int
        if let number = config.int(forKey: ConfigKey(key.rawValue)) {
            value = number
        } else if let text = config.string(forKey: ConfigKey(key.rawValue)) {
            if text.isEmpty { return nil }
            guard let number = Int(text) else {
                throw StratusSettingsError("'\(key.rawValue)' must be \(key.summary), got '\(text)'", key: key.rawValue)
            }
            value = number
        } else if StratusSettings.isSet(config, key) {
            throw StratusSettingsError("'\(key.rawValue)' must be \(key.summary)", key: key.rawValue)
        } else {
            return nil
        }
        guard range.contains(value) else {
            throw StratusSettingsError("'\(key.rawValue)' must be \(key.summary), got \(value)", key: key.rawValue)
        }
        return value
    }
}
