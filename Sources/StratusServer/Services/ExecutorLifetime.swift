import ServiceLifecycle

/// Keeps the engine's threads until graceful shutdown reaches it, then shuts them down. It is
/// the first service of the group, so the group stops it last: after the HTTP server finished
/// its requests and the long-lived runner suspended its operations (both still use the
/// engine's threads).
struct ExecutorLifetime: Service {
    let executor: EngineExecutor

    func run() async throws {
        try? await gracefulShutdown()
        try await executor.shutdown()
    }
}
