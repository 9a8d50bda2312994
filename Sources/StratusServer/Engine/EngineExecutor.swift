import Foundation
import Logging
import NIOPosix
internal import Stratus
internal import StratusWebServices
import Synchronization

/// Runs the engine's synchronous, possibly blocking calls (decision 0001.2) on threads of
/// their own, never on Swift's cooperative pool, and refuses work beyond a bound with 503
/// `TRY_AGAIN_LATER` instead of queueing without end (decision 0012.5).
///
/// The server's own upkeep of its long-lived leases runs on a reserved thread of its own,
/// outside that bound (``runReserved(requestID:_:)``): a loaded server must not lose its leases.
final class EngineExecutor: Sendable {
    private let pool: NIOThreadPool
    /// The thread of ``runReserved(requestID:_:)``.
    private let reserved = NIOThreadPool(numberOfThreads: 1)
    private let pending = Atomic<Int>(0)
    /// Requests waiting or running beyond which new ones are refused.
    let maximumPending: Int
    private let logger: Logger

    /// An executor with `threads` threads; call ``start()`` before use and ``shutdown()`` after.
    init(threads: Int, maximumPending: Int, logger: Logger) {
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
        self.maximumPending = maximumPending
        self.logger = logger
    }

    /// Calls waiting for a thread or running now.
    var pendingCount: Int { pending.load(ordering: .relaxed) }

    func start() {
        pool.start()
        reserved.start()
    }

    func shutdown() async throws {
        try await reserved.shutdownGracefully()
        try await pool.shutdownGracefully()
    }

    /// `body`'s result, computed on a pool thread. An engine error becomes the request's
    /// refusal (``ServerError``); any other error is an internal failure, logged with the
    /// request ID and not shown to the client. A task cancelled while its call waits for a
    /// thread gets `CancellationError`, and the call does not run. (The pool also answers
    /// `CancellationError` to a call it refuses because it is stopping: with the task not
    /// cancelled, that is a failure, logged as one.)
    func run<T: Sendable>(requestID: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        let waiting = pending.wrappingAdd(1, ordering: .relaxed).newValue
        defer { pending.wrappingSubtract(1, ordering: .relaxed) }
        guard waiting <= maximumPending else {
            throw ServerError(
                .serviceUnavailable, "TRY_AGAIN_LATER",
                "the server has \(maximumPending) requests in progress; retry after the advised delay",
                retryAfter: 1, stratusErrorCode: "serviceUnavailable")
        }
        return try await perform(on: pool, requestID: requestID, body)
    }

    /// `body`'s result, computed on the reserved thread, never refused for load: for the
    /// long-lived runner's lease renewals and claims (decision 0014.10), which must go on while
    /// clients' requests get 503. Errors are translated as ``run(requestID:_:)`` does.
    func runReserved<T: Sendable>(requestID: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await perform(on: reserved, requestID: requestID, body)
    }

    private func perform<T: Sendable>(
        on pool: NIOThreadPool, requestID: String, _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        do {
            return try await pool.runIfActive(body)
        } catch let error as CKError {
            if !ErrorTable.mayShowReason(of: error) {
                logger.error(
                    "engine failure",
                    metadata: ["stratus.request.id": "\(requestID)", "stratus.reason": "\(error.localizedDescription)"])
            }
            throw ServerError(error)
        } catch let error as ServerError {
            throw error
        } catch let error as CancellationError where Task.isCancelled {
            // The caller's task was cancelled before a thread took the call: nothing ran, and
            // nothing failed (a client gone, a shutdown); the caller handles its cancellation.
            throw error
        } catch {
            logger.error(
                "engine failure", metadata: ["stratus.request.id": "\(requestID)", "stratus.reason": "\(error)"])
            throw ServerError.internalFailure
        }
    }
}
