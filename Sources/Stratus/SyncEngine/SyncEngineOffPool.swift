import Foundation

/// Runs a call that may block (a remote container's first request, made synchronously by the
/// engine seam) on a thread of its own, so the sync engine never blocks the concurrency pool.
enum SyncEngineOffPool {
    /// `body`'s result, computed on a new thread.
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.name = "stratus.sync-engine"
            thread.start()
        }
    }
}
