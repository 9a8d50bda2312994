import ServiceLifecycle

/// Periodic work of a stratusd (credential and asset maintenance, the notification hub's
/// polling) as a service of the application's `ServiceGroup`: `body` runs until graceful
/// shutdown cancels it.
struct BackgroundService: Service {
    let body: @Sendable () async -> Void

    func run() async throws {
        await cancelWhenGracefulShutdown { await body() }
    }
}
