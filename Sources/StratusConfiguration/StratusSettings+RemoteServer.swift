public import StratusRemote

extension StratusSettings {
    /// The server the default containers are remote containers on, with the credentials read
    /// from `serverCredentialsFile`; `nil` when `server` is not set.
    ///
    /// - Throws: ``StratusSettingsError`` when the credentials file does not exist, cannot be
    ///   read, or is not a JSON object with an `apiToken` string (and optionally `webAuthToken`,
    ///   `environment` and `trustedCertificatesFile`) or a server-to-server key: the message names the key, the file, what is accepted and where
    ///   the path came from, and never a token.
    public func remoteServer() throws -> RemoteServer? {
        guard let url = remote.url else { return nil }
        guard let path = remote.credentialsFile else {
            throw StratusSettingsError(
                "configuration: 'server' is set but 'serverCredentialsFile' is not: a remote container needs credentials",
                key: SettingsKey.server.rawValue)
        }
        let file = RemoteCredentialsFile(path: path, origin: origins[SettingsKey.serverCredentialsFile.rawValue])
        let contents = try file.read()
        var server = RemoteServer(
            url: url, credentials: contents.credentials, environment: contents.environment,
            trustedCertificatesFile: contents.trustedCertificatesFile)
        if let bytes = remote.assetCacheBytes { server.assetCache.maximumBytes = bytes }
        return server
    }
}
