import Foundation
import Hummingbird
public import Logging
import NIOCore
import ServiceLifecycle
internal import Stratus
public import StratusBackend

/// `stratusd`'s HTTP application: CloudKit Web Services over a Stratus backend
/// (decision 0012).
///
/// It answers `GET /health` without credentials, the Web Services endpoints under
/// `/database/1/…` with them (decision 0013), and refuses every other request with CloudKit's
/// `AUTHENTICATION_FAILED` error dictionary. `Docs/Server.md` lists what is served.
public struct StratusServer: Sendable {
    /// How much engine work may run and wait at once (decision 0012.5).
    public struct Limits: Sendable {
        /// Threads running engine calls (which may block on the store).
        public var engineThreads: Int
        /// Engine calls waiting or running beyond which requests get 503 `TRY_AGAIN_LATER`.
        public var maximumPendingRequests: Int
        /// The largest asset an upload URL takes; a larger one gets 413 (decision 0012.8).
        public var maximumAssetBytes: Int
        /// The bytes of request bodies, uploads included, held at once across every connection;
        /// past it a request gets 503 `TRY_AGAIN_LATER` before its body is read (decision
        /// 0012.5). Never less than the largest single body.
        public var maximumBufferedBodyBytes: Int

        /// Two engine threads per core, 256 pending calls, 50 MiB assets (decision 0015), 256 MiB
        /// of bodies held at once.
        public init(
            engineThreads: Int = 2 * ProcessInfo.processInfo.activeProcessorCount,
            maximumPendingRequests: Int = 256, maximumAssetBytes: Int = 50 << 20,
            maximumBufferedBodyBytes: Int = 256 << 20
        ) {
            self.engineThreads = engineThreads
            self.maximumPendingRequests = maximumPendingRequests
            self.maximumAssetBytes = maximumAssetBytes
            self.maximumBufferedBodyBytes = maximumBufferedBodyBytes
        }
    }

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
    /// How much engine work may run and wait at once.
    public let limits: Limits
    /// TLS, connection limits, idle timeout and body limit of the API listener.
    public var connections = ConnectionSettings()
    /// The Prometheus listener started beside the API, if any (decision 0013.7).
    public var metrics: MetricsListener?
    /// How long a long-lived operation's lease lasts without renewal (decision 0014.10): 30
    /// seconds; a process renews its leases every third of it.
    public var longLivedLeaseSeconds: Double = 30
    /// How often the heads of the notification logs that long-polls wait on are read
    /// (decision 0014.6): 500 ms. On PostgreSQL, commit signals wake polls sooner.
    public var notificationPollInterval: Duration = .milliseconds(500)
    /// Sign-in URL, session lifetime, signed-request window and replay guard (decision 0013).
    public var auth = AuthSettings()
    /// How long and how much of each user's notification log is kept (decision 0014.2).
    public var notificationLog = NotificationLogSettings()
    /// Whether `records/changes` and `records/modify` speak Stratus's binary record encoding
    /// (`application/vnd.stratus.records`, decision 0018) with the clients that ask for it:
    /// `true`. Off, the server answers JSON only and does not advertise it, as one without it.
    public var recordEncoding = true

    /// A server for `backend`, described as `backendDescription` (never with a password).
    public init(
        backend: any DatabaseBackend, backendDescription: String, address: Address = Address(),
        limits: Limits = Limits(), logger: Logger = Logger(label: "stratus.server")
    ) {
        self.limits = limits
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
        if case .memory = auth.replayGuard {
            logger.notice("the replay guard of signed requests is kept in memory: run a single stratusd on this store")
        }
        let state = ServerState(
            engine: try Engine(backend: backend), limits: limits, maximumBodyBytes: connections.maxBodyBytes,
            servesTLS: connections.tls != nil,
            logger: logger, longLivedTiming: LongLivedRunner.Timing(leaseDuration: longLivedLeaseSeconds),
            notificationPollInterval: notificationPollInterval, auth: auth, notificationLog: notificationLog,
            recordEncoding: recordEncoding)
        state.executor.start()
        do {
            try await AssetMaintenance(server: state).prepare()
        } catch {
            try? await state.executor.shutdown()
            throw error
        }
        let application = Application(
            router: makeRouter(state), server: try httpServer(), configuration: applicationConfiguration,
            services: metricsServices(),
            onServerRunning: { channel in
                let bound = channel.localAddress
                await onListening(bound?.ipAddress ?? address.host, bound?.port ?? address.port)
            },
            logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: services(state, application: application), gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await group.run()
    }

    /// Every service, in start order; SIGTERM stops them one at a time in reverse order. First
    /// the long-lived runner: it suspends its operations at their next journal point and
    /// releases their leases, so another process resumes them at once (decision 0014.10) —
    /// before, not after, the HTTP server drains its requests, which can take seconds. Then the
    /// application (the HTTP server, which finishes the requests in flight, and the metrics
    /// listener), the periodic work, and last the engine's threads, which everything before
    /// still uses. The builder of declared indexes stops first of all, between two batches: its
    /// build resumes from its cursor in the next process (decision 0020.8).
    func services(_ state: ServerState, application: some Service) -> [any Service] {
        [
            ExecutorLifetime(executor: state.executor),
            BackgroundService { await CredentialMaintenance(server: state).run() },
            BackgroundService { await state.notificationHub.run() },
            BackgroundService { await AssetMaintenance(server: state).run() },
            BackgroundService { await LongLivedMaintenance(server: state).run() },
            application,
            state.longLivedRunner,
            BackgroundService { await state.indexBuilder.run() },
        ]
    }

    /// The routes: `/health`, the database endpoints, and CloudKit's error for everything else.
    func makeRouter(_ state: ServerState) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: RequestMetricsMiddleware())
        router.add(middleware: RequestLogMiddleware())
        router.add(middleware: InternalErrorMiddleware())
        router.add(
            middleware: BodyLimitMiddleware(maxBytes: connections.maxBodyBytes, maxAssetBytes: limits.maximumAssetBytes)
        )
        router.add(middleware: BodyBudgetMiddleware(budget: state.bodyBudget))
        if let signInURL = auth.signInURL { router.add(middleware: SignInRedirectMiddleware(url: signInURL)) }
        router.get("/health") { _, context in try await HealthCheck(backend: backend).response(logger: context.logger) }
        TokensCreateRoute(server: state).register(on: router)
        NotificationRoutes(server: state).register(on: router)
        DatabaseRoutes(server: state, operations: DatabaseOperations.all).register(on: router)
        SessionRoutes(server: state).register(on: router)
        AssetRoutes(server: state).register(on: router)
        router.add(middleware: CredentialsRequiredMiddleware())
        return router
    }
}
