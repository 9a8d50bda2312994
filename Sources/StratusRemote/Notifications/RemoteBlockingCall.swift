import Foundation
import Synchronization

/// A blocking call (the engine seam's, which waits for its HTTP answer on the calling thread)
/// made from `async` code: it runs on a thread of its own, never blocking the concurrency pool,
/// and the awaiting task stops waiting as soon as it is cancelled (the call finishes on its own).
///
/// Not on a dispatch queue: on Linux the global queues have about as many threads as cores, so
/// when other blocking work holds them the call could wait long before it starts. A container
/// makes this call once (finding its remote service), so a thread per call costs nothing.
final class RemoteBlockingCall<Value: Sendable>: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Value?, Never>)
        case cancelled
        case finished
    }

    private let state = Mutex(State.idle)

    private init() {}

    /// `body`'s value, or `nil` when the task was cancelled first.
    static func run(_ body: @escaping @Sendable () -> Value) async -> Value? {
        let call = RemoteBlockingCall()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                call.arm(continuation)
                let thread = Thread { call.finish(body()) }
                thread.name = "stratus.remote.notifications"
                thread.start()
            }
        } onCancel: {
            call.finish(nil)
        }
    }

    /// Keeps `continuation` for the first of the call's end and the cancellation, or resumes it
    /// at once when the task was cancelled before.
    private func arm(_ continuation: CheckedContinuation<Value?, Never>) {
        let cancelledBefore = state.withLock { state -> Bool in
            guard case .idle = state else { return true }
            state = .waiting(continuation)
            return false
        }
        if cancelledBefore { continuation.resume(returning: nil) }
    }

    /// Resumes the waiting task with `value` (`nil`: cancelled), once.
    private func finish(_ value: Value?) {
        let waiting = state.withLock { state -> CheckedContinuation<Value?, Never>? in
            switch state {
            case .waiting(let continuation):
                state = .finished
                return continuation
            case .idle:
                state = value == nil ? .cancelled : .finished
                return nil
            case .cancelled, .finished:
                return nil
            }
        }
        waiting?.resume(returning: value)
    }
}
