public import Configuration
public import Foundation

/// The `stratusd` that the default containers are remote containers on (decision 0016.4),
/// ``StratusSettings/remote``.
///
/// | Key | Environment variable | Default |
/// |---|---|---|
/// | `server` | `STRATUS_SERVER` | not set: the default containers are embedded, over `backend` |
/// | `serverCredentialsFile` | `STRATUS_SERVER_CREDENTIALS_FILE` | not set; required with `server` |
/// | `remoteAssetCacheBytes` | `STRATUS_REMOTE_ASSET_CACHE_BYTES` | `536870912` (512 MiB): the size the cache of fetched assets is trimmed to, remote or embedded (decision 0022) |
///
/// The credentials file is JSON, readable by the app only:
///
/// ```json
/// {"apiToken": "…", "webAuthToken": "…", "environment": "development"}
/// ```
///
/// `apiToken` is the container's API token (`stratusd admin token create`), `webAuthToken` a
/// user's session (`stratusd admin session create`; leave it out for anonymous reads of the
/// public database), `environment` `development` (the default) or `production`. Credentials
/// are never a configuration value of their own, never on a command line, and never in a log
/// or an error message. Loading checks the URL and that both keys are set together; the file is
/// read by ``StratusSettings/remoteServer()``, when the remote containers are made.
public struct StratusRemoteSettings: Sendable, Hashable {
    /// The server's base URL (`server`), `nil` when the default containers are embedded.
    public var url: URL?
    /// The path of the credentials file (`serverCredentialsFile`).
    public var credentialsFile: String?
    /// The size the default containers' cache of fetched assets is trimmed to
    /// (`remoteAssetCacheBytes`, decision 0022): a remote container's downloads, or the
    /// embedded engine's materialized files when the default containers are over a backend;
    /// `nil` for the default, 512 MiB.
    public var assetCacheBytes: Int64?

    /// No server: embedded default containers.
    public init() {}

    /// Settings read from `config`: the keys in the table above, relative to the reader's
    /// scope; an empty value counts as unset.
    ///
    /// - Throws: ``StratusSettingsError`` naming the key and what it accepts when `server` is
    ///   not an `http` or `https` URL with a host (or carries a user, password, query or
    ///   fragment: credentials belong in the file), or when one key is set without the other.
    public init(config: ConfigReader) throws {
        if let text = try StratusSettings.string(config, .server) {
            url = try Self.serverURL(text)
        }
        credentialsFile = try StratusSettings.string(config, .serverCredentialsFile)
        assetCacheBytes = try StratusServerSettings.integer(config, .remoteAssetCacheBytes, in: 1...Int.max)
            .map(Int64.init)
        if url != nil && credentialsFile == nil {
            throw StratusSettingsError(
                "'server' is set but 'serverCredentialsFile' is not: a remote container needs credentials; set 'serverCredentialsFile' (\(SettingsKey.serverCredentialsFile.environmentVariable)) to \(SettingsKey.serverCredentialsFile.summary)",
                key: SettingsKey.server.rawValue)
        }
        if url == nil && credentialsFile != nil {
            throw StratusSettingsError(
                "'serverCredentialsFile' is set but 'server' is not: set 'server' (\(SettingsKey.server.environmentVariable)) to the stratusd the credentials are for, or remove 'serverCredentialsFile'",
                key: SettingsKey.serverCredentialsFile.rawValue)
        }
    }

    /// `text` as a server URL. A refused value is echoed only when it cannot hold a secret.
    private static func serverURL(_ text: String) throws -> URL {
        let key = SettingsKey.server
        guard let components = URLComponents(string: text) else {
            throw StratusSettingsError("'server' must be \(key.summary), got '\(text)'", key: key.rawValue)
        }
        if components.user != nil || components.password != nil || components.query != nil {
            throw StratusSettingsError(
                "'server' must be \(key.summary), without a user, password or query: credentials belong in the file 'serverCredentialsFile' names",
                key: key.rawValue)
        }
        guard let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
            components.host?.isEmpty == false, components.fragment == nil, let url = components.url
        else {
            throw StratusSettingsError("'server' must be \(key.summary), got '\(text)'", key: key.rawValue)
        }
        return url
    }
}
