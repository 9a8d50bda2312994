import Foundation
import StratusConfiguration
import StratusServer

/// Turns the configured server settings into the server's listeners, checking what loading
/// the configuration does not: that the TLS files and the metrics token file are readable,
/// that a certificate comes with its key, and that metrics off loopback have a token. Every
/// error names the key and where its value came from.
struct ServerStartup {
    /// The settings, with the command-line overrides applied and recorded in `origins`.
    let settings: StratusSettings

    private var server: StratusServerSettings { settings.server }

    /// TLS, limits and timeouts of the API listener.
    func connections() throws -> ConnectionSettings {
        ConnectionSettings(
            tls: try tlsCredentials(), maxConnections: server.maxConnections, maxBodyBytes: server.maxBodyBytes)
    }

    /// The metrics listener, serving `exposition()` and reporting its address to `onListening`.
    func metricsListener(
        exposition: @escaping @Sendable () -> String, onListening: @escaping @Sendable (String, Int) async -> Void
    ) throws -> MetricsListener {
        let token = try metricsToken()
        do {
            return try MetricsListener(
                host: server.metricsHost, port: server.metricsPort, bearerToken: token, exposition: exposition,
                onListening: onListening)
        } catch let error as MetricsListenerError {
            throw failure("metricsHost", error.description)
        }
    }

    /// The credential settings (`authSignInUrl`, `authSessionTtlSeconds`, `authS2sMaxAgeSeconds`,
    /// `authReplayGuard`), already range-checked by loading.
    func auth() -> StratusServer.AuthSettings {
        let configured = server.auth
        var auth = StratusServer.AuthSettings()
        auth.signInURL = configured.signInURL
        auth.sessionTTL = TimeInterval(configured.sessionTTLSeconds)
        auth.signatureMaxAge = TimeInterval(configured.s2sMaxAgeSeconds)
        switch configured.replayGuard {
        case .backend: auth.replayGuard = .backend
        case .memory: auth.replayGuard = .memory(capacity: StratusServer.AuthSettings.defaultMemoryCapacity)
        }
        return auth
    }

    /// The notification logs' retention and size (`notificationsRetentionSeconds`,
    /// `notificationsMaxPerUser`).
    func notificationLog() -> StratusServer.NotificationLogSettings {
        var log = StratusServer.NotificationLogSettings()
        log.retention = TimeInterval(server.notifications.retentionSeconds)
        log.maximumEntriesPerUser = server.notifications.maxPerUser
        return log
    }

    /// The certificate and key, or `nil` when neither is configured.
    private func tlsCredentials() throws -> TLSCredentials? {
        switch (server.tlsCertificateFile, server.tlsKeyFile) {
        case (nil, nil):
            return nil
        case (let certificate?, let key?):
            do {
                return try TLSCredentials(certificateFile: certificate, keyFile: key)
            } catch let error as TLSFileError {
                throw failure(error.file == .certificate ? "serverTlsCertificate" : "serverTlsKey", error.description)
            }
        case (_?, nil):
            throw failure(
                "serverTlsCertificate", "serverTlsKey is not set; HTTPS needs both the certificate and its key")
        case (nil, _?):
            throw failure(
                "serverTlsKey", "serverTlsCertificate is not set; HTTPS needs both the certificate and its key")
        }
    }

    /// The metrics bearer token: the token file's content without surrounding white space.
    private func metricsToken() throws -> String? {
        guard let path = server.metricsBearerTokenFile else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw failure("metricsBearerTokenFile", "cannot read '\(path)'")
        }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw failure("metricsBearerTokenFile", "'\(path)' is empty") }
        return token
    }

    /// `configuration: <key> (from <origin>): <message>`.
    private func failure(_ key: String, _ message: String) -> StratusSettingsError {
        let origin = settings.origins[key] ?? "default"
        return StratusSettingsError("configuration: \(key) (from \(origin)): \(message)", key: key)
    }
}
