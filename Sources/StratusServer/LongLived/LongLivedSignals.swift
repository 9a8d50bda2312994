internal import Stratus
import Synchronization

/// Wakes the `…/stratus/operations/{id}/events` requests waiting for an operation's next
/// callbacks when this process journals them (decision 0014.9): the runner signals after each
/// journal write of an operation it runs, the endpoints after a cancellation. Callbacks
/// journaled by another stratusd on the same PostgreSQL send no signal here; waiters also
/// read the journal again every ``LongLivedRunner/Timing/eventsReread`` for them.
final class LongLivedSignals: Sendable {
    /// One waiter's registration, made before it reads the journal so that a signal sent
    /// between its read and its wait is not lost.
    struct Subscription: Sendable {
        fileprivate let id: UInt64
        fileprivate let lease: LongLivedLease
        fileprivate let stream: AsyncStream<Void>
    }

    private struct State {
        var next: UInt64 = 0
        var waiters: [LongLivedLease: [UInt64: AsyncStream<Void>.Continuation]] = [:]
    }

    private let state = Mutex(State())

    /// Registers a waiter for `lease`'s next signal; end it with ``end(_:)``.
    func subscribe(_ lease: LongLivedLease) -> Subscription {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            state.next += 1
            state.waiters[lease, default: [:]][state.next] = continuation
            return state.next
        }
        return Subscription(id: id, lease: lease, stream: stream)
    }

    /// Removes the registration.
    func end(_ subscription: Subscription) {
        let continuation = state.withLock { state in
            let removed = state.waiters[subscription.lease]?.removeValue(forKey: subscription.id)
            if state.waiters[subscription.lease]?.isEmpty == true { state.waiters[subscription.lease] = nil }
            return removed
        }
        continuation?.finish()
    }

    /// Wakes every waiter of `lease` (a signal before its wait is kept for it).
    func signal(_ lease: LongLivedLease) {
        let continuations = state.withLock { $0.waiters[lease].map { Array($0.values) } ?? [] }
        for continuation in continuations { continuation.yield() }
    }

    /// Returns at `subscription`'s next signal, after `timeout`, or when the task is
    /// cancelled, whichever is first.
    func wait(_ subscription: Subscription, timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in subscription.stream { return }
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    /// How many requests wait now (for tests).
    var waiterCount: Int { state.withLock { $0.waiters.values.reduce(0) { $0 + $1.count } } }
}
