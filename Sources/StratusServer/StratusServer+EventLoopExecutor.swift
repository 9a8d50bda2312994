import NIOCore
import NIOPosix

extension StratusServer {
    /// Makes SwiftNIO's event loop threads (which Hummingbird serves on) Swift Concurrency's
    /// global executor, so a request's task resumes on the thread that read it instead of
    /// waking a thread of the cooperative pool for every step (request in, engine result back,
    /// response out). Engine calls still run on the engine's own threads, never on these.
    ///
    /// Call it once, first thing in `main`, before any task runs; `false` when the platform
    /// does not allow it (the server then runs on the default pool, as before).
    @discardableResult
    public static func runTasksOnEventLoops() -> Bool {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }
}
