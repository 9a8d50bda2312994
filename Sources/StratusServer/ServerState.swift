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
    /// The bytes of request bodies held at once: ``StratusServer/Limits/maximumBufferedBodyBytes``,
    /// and at least the largest single body, so that one always fits.
    let bodyBudget: BodyBudget
    let logger: Logger
    /// Wakes the waiting long-polls and event streams (decision 0014.6).
    let notificationHub: NotificationHub
    /// Runs the submitted long-lived operations (decision 0014.9).
    let longLivedRunner: LongLivedRunner
    /// Builds the indexes schema imports declare, in the background (decision 0020.8).
    let indexBuilder: DeclaredIndexBuilder
    /// The HMAC key asset URLs and receipts are signed with (decision 0012.8).
    let assetKeys = AssetKeyring()
    /// Sign-in URL, session lifetime, signed-request window and replay guard (decision 0013).
    let auth: StratusServer.AuthSettings
    /// Retention and size of the notification logs (decision 0014.2).
    let notificationLog: StratusServer.NotificationLogSettings
    /// Whether the binary record encoding is spoken (``StratusServer/recordEncoding``).
    let recordEncoding: Bool

    init(
        engine: Engine, limits: StratusServer.Limits, maximumBodyBytes: Int, servesTLS: Bool, logger: Logger,
        longLivedTiming: LongLivedRunner.Timing = LongLivedRunner.Timing(),
        notificationPollInterval: Duration = .milliseconds(500), auth: StratusServer.AuthSettings = .init(),
        notificationLog: StratusServer.NotificationLogSettings = .init(), recordEncoding: Bool = true
    ) {
        self.recordEncoding = recordEncoding
        self.auth = auth
        self.notificationLog = notificationLog
        engine.setNotificationLogLimit(Int64(notificationLog.maximumEntriesPerUser))
        self.maximumBodyBytes = maximumBodyBytes
        self.bodyBudget = BodyBudget(
            total: max(limits.maximumBufferedBodyBytes, maximumBodyBytes, limits.maximumAssetBytes))
        self.servesTLS = servesTLS
        self.engine = engine
        self.executor = EngineExecutor(
            threads: limits.engineThreads, maximumPending: limits.maximumPendingRequests, logger: logger)
        self.authStore = AuthStore(engine: engine)
        self.authenticator = Authenticator(
            store: authStore, signatureMaxAge: auth.signatureMaxAge, replayGuard: auth.replayGuard.storage)
        self.limits = limits
        self.logger = logger
        self.longLivedRunner = LongLivedRunner(
            engine: engine, executor: executor, logger: logger, timing: longLivedTiming)
        self.indexBuilder = DeclaredIndexBuilder(engine: engine, executor: executor, logger: logger)
        let hub = NotificationHub(
            engine: engine, executor: executor, logger: logger, pollInterval: notificationPollInterval)
        self.notificationHub = hub
        engine.observeNotifications { hub.wake($0) }
    }
}

extension StratusServer.AuthSettings.ReplayGuard {
    /// The authenticator's form of this choice.
    var storage: Authenticator.ReplayGuardStorage {
        switch self {
        case .backend: return .store
        case .memory(let capacity): return .memory(capacity: capacity)
        }
    }
}
