import Foundation
import Logging
import ServiceLifecycle
internal import Stratus
import Synchronization

/// Wakes the long-polls and event streams waiting on a notification log (decision 0014.6).
///
/// Three ways a log's waiters learn that it moved: this process's own commits (the engine tells
/// ``wake(_:)`` after each commit that appended entries); on PostgreSQL, the commit signals of
/// every process on the same store (`LISTEN/NOTIFY`, relayed by ``relaySignals()``); and a
/// poll, every ``pollInterval``, of the heads of every log with a waiter in one `getMany` —
/// which catches the commits of other stratusd processes on any shared store and any missed
/// signal. Polling is the correctness mechanism; the others only make it faster.
final class NotificationHub: Sendable {
    /// One waiting poll or stream.
    private struct Waiter {
        var log: Int64
        /// The log's `next` position the waiter has already seen.
        var seen: Int64
        var continuation: CheckedContinuation<Void, Never>
        /// Ends the wait at its timeout; cancelled when the waiter is woken sooner, so a woken
        /// poll leaves no task sleeping out the rest of its timeout.
        var timer: Task<Void, Never>?
    }

    private struct State {
        var waiters: [UInt64: Waiter] = [:]
        /// Waiters cancelled before they were registered.
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())
    /// When retention last ran per log, in this process.
    private let retentionRuns = Mutex<[Int64: ContinuousClock.Instant]>([:])
    private let engine: Engine
    private let executor: EngineExecutor
    private let logger: Logger
    /// How often the heads of waited-on logs are read (`notifications.pollInterval`).
    let pollInterval: Duration

    init(engine: Engine, executor: EngineExecutor, logger: Logger, pollInterval: Duration = .milliseconds(500)) {
        self.engine = engine
        self.executor = executor
        self.logger = logger
        self.pollInterval = pollInterval
    }

    /// Waits until log `log` moves past `seen` (its `next` position as last read), `timeout`
    /// passes, the task is cancelled (the client went away) or the server shuts down
    /// gracefully (so SIGTERM does not wait for long-polls), whichever comes first.
    func wait(log: Int64, seen: Int64, timeout: Duration) async {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        await withGracefulShutdownHandler {
            await wait(id: id, log: log, seen: seen, timeout: timeout)
        } onGracefulShutdown: {
            self.cancel(id: id)
        }
        // A cancellation that came after the waiter was resumed left its mark.
        state.withLock { _ = $0.cancelled.remove(id) }
    }

    /// Resumes waiter `id` now, or at once when it registers.
    private func cancel(id: UInt64) {
        let registered = state.withLock { state -> Bool in
            if state.waiters[id] != nil { return true }
            state.cancelled.insert(id)
            return false
        }
        if registered { resume(id: id) }
    }

    private func wait(id: UInt64, log: Int64, seen: Int64, timeout: Duration) async {
        guard !Task.isShuttingDownGracefully else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.cancelled.remove(id) != nil { return true }
                    state.waiters[id] = Waiter(log: log, seen: seen, continuation: continuation)
                    return false
                }
                if resumeNow {
                    continuation.resume()
                    return
                }
                let timer = Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    guard !Task.isCancelled else { return }
                    self?.resume(id: id)
                }
                let waiting = state.withLock { state -> Bool in
                    guard state.waiters[id] != nil else { return false }
                    state.waiters[id]?.timer = timer
                    return true
                }
                if !waiting { timer.cancel() }
            }
        } onCancel: {
            cancel(id: id)
        }
    }

    /// Whether retention should run on `log` now: at most once a minute per log (and the
    /// answer notes that it runs).
    func shouldApplyRetention(_ log: Int64) -> Bool {
        let now = ContinuousClock.now
        return retentionRuns.withLock { runs in
            if let last = runs[log], now - last < .seconds(60) { return false }
            runs[log] = now
            return true
        }
    }

    /// Wakes every waiter of `logs` (this process committed entries to them).
    func wake(_ logs: [Int64]) {
        let set = Set(logs)
        resume(where: { set.contains($0.log) })
    }

    /// Reads the heads of every waited-on log every ``pollInterval`` and wakes the waiters of
    /// those that moved, and relays the backend's commit signals, until the task is cancelled.
    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.relaySignals() }
            while !Task.isCancelled {
                try? await Task.sleep(for: pollInterval)
                await pollHeads()
            }
            group.cancelAll()
        }
    }

    /// Wakes the waiters of every log another process's commit signals (PostgreSQL), and
    /// polls every head once after the signals were interrupted; returns at once on a backend
    /// without signals.
    func relaySignals() async {
        guard let signals = engine.notificationSignals() else { return }
        for await signal in signals {
            switch signal {
            case .signal(let payload): if let log = Int64(payload) { wake([log]) }
            case .reconnected: await pollHeads()
            }
        }
    }

    /// Reads the heads of every waited-on log in one `getMany` and wakes the waiters of those
    /// that moved.
    private func pollHeads() async {
        let logs = state.withLock { Array(Set($0.waiters.values.map(\.log))) }
        guard !logs.isEmpty else { return }
        let engine = self.engine
        do {
            let heads = try await executor.run(requestID: "notification-hub") {
                try engine.notificationHeads(logs)
            }
            resume(where: { waiter in heads[waiter.log].map { $0.next > waiter.seen } ?? false })
        } catch is CancellationError {
            // Graceful shutdown: every waiter ends by its own shutdown handler (``wait``).
        } catch {
            logger.warning("reading notification log heads failed", metadata: ["stratus.error": "\(error)"])
        }
    }

    private func resume(id: UInt64) {
        resume(ids: { $0 == id }, where: { _ in true })
    }

    private func resume(where matches: (Waiter) -> Bool) {
        resume(ids: { _ in true }, where: matches)
    }

    private func resume(ids: (UInt64) -> Bool, where matches: (Waiter) -> Bool) {
        let woken = state.withLock { state -> [Waiter] in
            let chosen = state.waiters.filter { ids($0.key) && matches($0.value) }
            for key in chosen.keys { state.waiters[key] = nil }
            return Array(chosen.values)
        }
        for waiter in woken {
            waiter.timer?.cancel()
            waiter.continuation.resume()
        }
    }
}
