import Hummingbird
public import Logging
import NIOCore
public import StratusBackend

/// `stratusd`'s HTTP application: CloudKit Web Services over a Stratus backend
/// (decision 0012).
///
/// This is the first step of the server: it answers `GET /health` without credentials and
/// refuses every other request with CloudKit's `AUTHENTICATION_FAILED` error dictionary, since
/// no endpoint accepts credentials yet (`stratusd admin` already makes containers and API
/// tokens: decision 0013). The Web Services endpoints come next, on this same application.
public struct StratusServer: Sendable {
    /// Where the server listens.
    public struct Address: Sendable {
        /// The host to bind; `127.0.0.1` by default, so nothing outside this machine reaches a
        /// server nobody configured.
        public var host: String
        /// The port; 0 asks the system for a free one (``StratusServer/run(onListening:)``
        /// reports it).
        public var port: Int

        /// `host:port`.
        public init(host: String = "127.0.0.1", port: Int = 8080) {
            self.host = host
            self.port = port
        }
    }

    /// The store the server serves.
    public let backend: any DatabaseBackend
    /// A password-free description of the backend's location, logged when the server starts
    /// (the health answer says nothing but its status).
    public let backendDescription: String
    /// Where to listen.
    public let address: Address
    /// The server's logger (one line per request at info).
    public let logger: Logger
    /// TLS, connection limits, idle timeout and body limit of the API listener.
    public var connections = ConnectionSettings()
    /// The Prometheus listener started beside the API, if any (decision 0013.7).
    public var metrics: MetricsListener?

    /// A server for `backend`, described as `backendDescription` (never with a password).
    public init(
        backend: any DatabaseBackend, backendDescription: String, address: Address = Address(),
        logger: Logger = Logger(label: "stratus.server")
    ) {
        self.backend = backend
        self.backendDescription = backendDescription
        self.address = address
        self.logger = logger
    }

    /// Runs until SIGTERM or SIGINT, then stops accepting, finishes the requests in flight and
    /// returns. `onListening` receives the bound host and port once the server accepts
    /// connections.
    public func run(onListening: @escaping @Sendable (String, Int) async -> Void = { _, _ in }) async throws {
        let location = backendDescription
        logger.info(
            "serving",
            metadata: ["stratus.location": "\(location)", "stratus.http.address": "\(address.host):\(address.port)"])
        let application = Application(
            router: makeRouter(), server: try httpServer(), configuration: applicationConfiguration,
            services: metricsServices(),
            onServerRunning: { channel in
                let bound = channel.localAddress
                await onListening(bound?.ipAddress ?? address.host, bound?.port ?? address.port)
            },
            logger: logger)
        try await application.runService()
    }

    /// The routes: `/health`, and CloudKit's error for everything else.
    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: RequestLogMiddleware())
        router.add(middleware: BodyLimitMiddleware(maxBytes: connections.maxBodyBytes))
        router.get("/health") { _, context in try await HealthCheck(backend: backend).response(logger: context.logger) }
        router.add(middleware: CredentialsRequiredMiddleware())
        return router
    }
}
