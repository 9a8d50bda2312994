import ArgumentParser
import Foundation
import Logging
import StratusBackend
import StratusConfiguration
import StratusPostgreSQL
import StratusServer

/// `stratusd`: the self-hosted CloudKit server (decision 0012). It serves the configured
/// backend (`STRATUS_BACKEND`, the configuration file, or SQLite in `./.stratus/`) on
/// 127.0.0.1 by default; SIGTERM or SIGINT stops it gracefully.
@main
struct StratusDaemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stratusd",
        abstract: "A self-hosted CloudKit server over a Stratus backend.",
        discussion: """
            Serves the configured backend (STRATUS_BACKEND, the configuration file, or SQLite in \
            ./.stratus/). GET /health answers without credentials; every other request needs them. \
            See Docs/Server.md.
            """,
        version: "0.1.0")

    @Option(help: "The address to listen on (default 127.0.0.1: this machine only).")
    var host: String = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one (printed at start).")
    var port: Int = 8080

    @Option(
        help: ArgumentHelp("The backend URL, overriding STRATUS_BACKEND and the configuration file.", valueName: "url"))
    var backend: String?

    @Option(name: .customLong("config"), help: ArgumentHelp("A configuration file to read.", valueName: "file"))
    var configFile: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical (default info, or STRATUS_LOG_LEVEL).")
    var logLevel: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535, got \(port)") }
    }

    func run() async throws {
        var environment = ProcessInfo.processInfo.environment
        let level = try StratusSettings.logLevel(named: logLevel ?? environment["STRATUS_LOG_LEVEL"] ?? "info")
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        if let backend { environment["STRATUS_BACKEND"] = backend }
        let settings = try await StratusSettings.load(environment: environment, configFile: configFile)
        let registry = BackendRegistry.shared
        StratusBootstrap.registerBuiltInProviders(in: registry)
        registry.register(PostgreSQLBackendProvider(), replacing: false)
        let store = try StratusBootstrap.openBackend(for: settings, registry: registry)
        let server = StratusServer(
            backend: store, backendDescription: settings.backend.description,
            address: .init(host: host, port: port))
        let location = settings.backend.description
        try await server.run { host, port in
            let banner = """
                stratusd listening on http://\(host):\(port) — backend \(location)
                  health:      curl http://\(host):\(port)/health
                  credentials: none can be created yet; every endpoint but /health answers 401 \
                (the Web Services API and its credentials are being built: Docs/Server.md)

                """
            FileHandle.standardOutput.write(Data(banner.utf8))
        }
    }
}
