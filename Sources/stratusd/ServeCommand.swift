import ArgumentParser
import Foundation
import Logging
import StratusConfiguration
import StratusServer

/// `stratusd serve` (the default): runs the server until SIGTERM or SIGINT.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Serve the store over HTTP (the default command).",
        discussion: """
            Listeners, TLS, limits, credentials and notification logs come from the configuration \
            (serverHost, serverPort, serverTlsCertificate, serverTlsKey, metricsHost, metricsPort, \
            authSessionTtlSeconds, notificationsMaxPerUser, … or STRATUS_SERVER_*, STRATUS_METRICS_*, \
            STRATUS_AUTH_*, STRATUS_NOTIFICATIONS_*); the options below override them. See Docs/Server.md.
            """)

    @OptionGroup var store: StoreOptions

    @Option(help: "The address to listen on (default serverHost, else 127.0.0.1: this machine only).")
    var host: String?

    @Option(help: "The port to listen on (default serverPort, else 8080); 0 picks a free one (printed at start).")
    var port: Int?

    @Option(help: "The address of the Prometheus /metrics listener (default metricsHost, else 127.0.0.1).")
    var metricsHost: String?

    @Option(help: "The port of the /metrics listener (default metricsPort, else 9464); 0 picks a free one.")
    var metricsPort: Int?

    @Option(help: "trace, debug, info, notice, warning, error or critical (default info, or STRATUS_LOG_LEVEL).")
    var logLevel: String?

    @Option(
        help: """
            Seconds a long-lived operation's lease lasts without renewal (default 30): a killed \
            stratusd's operations are resumed by another process within about this time.
            """)
    var longLivedLeaseSeconds: Double?

    @Option(
        help: """
            Milliseconds between reads of the notification logs that long-polls wait on (default \
            500, 50…600000): how soon a commit through another stratusd wakes them without \
            PostgreSQL's LISTEN/NOTIFY, which wakes them at once.
            """)
    var notificationPollMilliseconds: Int?

    func validate() throws {
        if let notificationPollMilliseconds, !(50...600_000).contains(notificationPollMilliseconds) {
            throw ValidationError(
                "--notification-poll-milliseconds must be 50…600000, got \(notificationPollMilliseconds)")
        }
        if let longLivedLeaseSeconds, !(1...3600).contains(longLivedLeaseSeconds) {
            throw ValidationError("--long-lived-lease-seconds must be 1…3600, got \(longLivedLeaseSeconds)")
        }
        for (name, value) in [("--port", port), ("--metrics-port", metricsPort)] {
            if let value, !(0...65535).contains(value) {
                throw ValidationError("\(name) must be 0…65535, got \(value)")
            }
        }
    }

    func run() async throws {
        let level = try StratusSettings.logLevel(
            named: logLevel ?? ProcessInfo.processInfo.environment["STRATUS_LOG_LEVEL"] ?? "info")
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let registry = ServerMetricsBootstrap.bootstrap()
        let settings = try await overridden(store.settings())
        let startup = ServerStartup(settings: settings)
        let connections = try startup.connections()
        let location = settings.backend.description
        let banner = ListeningBanner(scheme: connections.scheme, location: location)
        let metrics = try startup.metricsListener(
            exposition: { registry.emitToString() },
            onListening: { host, port in await banner.metricsListening(host: host, port: port) })
        var server = StratusServer(
            backend: try store.open(settings), backendDescription: location,
            address: .init(host: settings.server.host, port: settings.server.port),
            limits: .init(
                maximumAssetBytes: settings.server.maxAssetBytes,
                maximumBufferedBodyBytes: settings.server.maxBufferedBodyBytes))
        server.connections = connections
        server.metrics = metrics
        server.auth = startup.auth()
        server.notificationLog = startup.notificationLog()
        if let longLivedLeaseSeconds { server.longLivedLeaseSeconds = longLivedLeaseSeconds }
        if let notificationPollMilliseconds {
            server.notificationPollInterval = .milliseconds(notificationPollMilliseconds)
        }
        try await server.run { host, port in await banner.apiListening(host: host, port: port) }
    }

    /// `settings` with the command line's listeners, each recorded as the origin of its key.
    private func overridden(_ settings: StratusSettings) -> StratusSettings {
        var settings = settings
        if let host {
            settings.server.host = host
            settings.origins["serverHost"] = "--host"
        }
        if let port {
            settings.server.port = port
            settings.origins["serverPort"] = "--port"
        }
        if let metricsHost {
            settings.server.metricsHost = metricsHost
            settings.origins["metricsHost"] = "--metrics-host"
        }
        if let metricsPort {
            settings.server.metricsPort = metricsPort
            settings.origins["metricsPort"] = "--metrics-port"
        }
        return settings
    }
}
