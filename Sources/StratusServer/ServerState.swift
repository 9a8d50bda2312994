import Logging
internal import Stratus

/// What every request shares: the engine over the served store, the threads engine calls run
/// on, the credentials, and the limits.
final class ServerState: Sendable {
    let engine: Engine
    let executor: EngineExecutor
    let authStore: AuthStore
    let authenticator: Authenticator
    let limits: StratusServer.Limits
    let logger: Logger
    /// The HMAC key asset URLs and receipts are signed with (decision 0012.8).
    let assetKeys = AssetKeyring()

    init(engine: Engine, limits: StratusServer.Limits, logger: Logger) {
        self.engine = engine
        self.executor = EngineExecutor(
            threads: limits.engineThreads, maximumPending: limits.maximumPendingRequests, logger: logger)
        self.authStore = AuthStore(engine: engine)
        self.authenticator = Authenticator(store: authStore)
        self.limits = limits
        self.logger = logger
    }
}
