import ArgumentParser
import Foundation
import Logging
import StratusConfiguration
import StratusServer

/// `stratusd serve` (the default): runs the server until SIGTERM or SIGINT.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Serve the store over HTTP (the default command).")

    @OptionGroup var store: StoreOptions

    @Option(help: "The address to listen on (default 127.0.0.1: this machine only).")
    var host: String = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one (printed at start).")
    var port: Int = 8080

    @Option(help: "trace, debug, info, notice, warning, error or critical (default info, or STRATUS_LOG_LEVEL).")
    var logLevel: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535, got \(port)") }
    }

    func run() async throws {
        let level = try StratusSettings.logLevel(
            named: logLevel ?? ProcessInfo.processInfo.environment["STRATUS_LOG_LEVEL"] ?? "info")
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let settings = try await store.settings()
        let backend = try store.open(settings)
        let location = settings.backend.description
        let server = StratusServer(
            backend: backend, backendDescription: location, address: .init(host: host, port: port))
        try await server.run { host, port in
            let banner = """
                stratusd listening on http://\(host):\(port) — backend \(location)
                  health:      curl http://\(host):\(port)/health
                  credentials: stratusd admin container create NAME; stratusd admin token create \
                --container NAME --environment development (the endpoints that use them are being \
                built: Docs/Server.md)

                """
            FileHandle.standardOutput.write(Data(banner.utf8))
        }
    }
}
