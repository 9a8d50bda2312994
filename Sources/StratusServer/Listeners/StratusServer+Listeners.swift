import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import ServiceLifecycle

extension StratusServer {
    /// The API listener's address, name and connection bound.
    var applicationConfiguration: ApplicationConfiguration {
        ApplicationConfiguration(
            address: .hostname(address.host, port: address.port), serverName: "stratusd",
            availableConnectionsDelegate: .maximum(connections.maxConnections, logger: logger))
    }

    /// HTTP/1.1 with the idle timeout, inside TLS when credentials are configured.
    func httpServer() throws -> HTTPServerBuilder {
        let idle = connections.idleTimeout.components
        let http = HTTPServerBuilder.http1(
            configuration: .init(
                idleTimeout: .nanoseconds(idle.seconds * 1_000_000_000 + idle.attoseconds / 1_000_000_000)))
        guard let tls = connections.tls else { return http }
        return try .tls(http, tlsConfiguration: tls.configuration)
    }

    /// The metrics listener, as a service run and shut down with the API's.
    func metricsServices() -> [any Service] {
        guard let metrics else { return [] }
        return [metrics.application(logger: logger)]
    }
}
