import Logging
internal import Stratus

/// What every request shares: the engine over the served store, the threads engine calls run
/// on, the credentials, the limits, and the notification hub.
final class ServerState: Sendable {
    let engine: Engine
    let executor: EngineExecutor
    let authStore: AuthStore
    let authenticator: Authenticator
    let limits: StratusServer.Limits
    /// Whether the API listener serves HTTPS (the scheme of the URLs the server hands out).
    let servesTLS: Bool
    /// The largest request body read (``ConnectionSettings/maxBodyBytes``).
    let maximumBodyBytes: Int
    let logger: Logger
    /// Wakes the waiting long-polls and event streams (decision 0014.6).
    let notificationHub: NotificationHub
    /// Runs the submitted long-lived operations (decision 0014.9).
    let longLivedRunner: LongLivedRunner
    /// The HMAC key asset URLs and receipts are signed with (decision 0012.8).
    let assetKeys = AssetKeyring()

    init(
        engine: Engine, limits: StratusServer.Limits, maximumBodyBytes: Int, servesTLS: Bool, logger: Logger,
        longLivedTiming: LongLivedRunner.Timing = LongLivedRunner.Timing(),
        notificationPollInterval: Duration = .milliseconds(500)
    ) {
        self.maximumBodyBytes = maximumBodyBytes
        self.servesTLS = servesTLS
        self.engine = engine
        self.executor = EngineExecutor(
            threads: limits.engineThreads, maximumPending: limits.maximumPendingRequests, logger: logger)
        self.authStore = AuthStore(engine: engine)
        self.authenticator = Authenticator(store: authStore)
        self.limits = limits
        self.logger = logger
        self.longLivedRunner = LongLivedRunner(
            engine: engine, executor: executor, logger: logger, timing: longLivedTiming)
        let hub = NotificationHub(
            engine: engine, executor: executor, logger: logger, pollInterval: notificationPollInterval)
        self.notificationHub = hub
        engine.observeNotifications { hub.wake($0) }
    }
}
