import Synchronization

/// Wakes a sync engine's automatic sync before its next scheduled look: a commit to the store
/// in this process, or a notification of the engine's subscription (decision 0017.7).
///
/// A signal that arrives while the engine is looking is kept, so the look after it runs at once:
/// a change committed during a fetch is never left for the next poll.
final class SyncEngineWakeup: Sendable {
    private struct State {
        var signalled = false
        var sleeper: Task<Void, Never>?
    }

    private let state = Mutex(State())

    /// Wakes the waiting loop, or the next one to wait.
    func signal() {
        let sleeper = state.withLock { state in
            state.signalled = true
            return state.sleeper
        }
        sleeper?.cancel()
    }

    /// Waits until signalled or until `timeout` has passed; a signal sent since the last wait
    /// ended returns at once.
    func wait(upTo timeout: Duration) async {
        let sleeper = state.withLock { state -> Task<Void, Never>? in
            if state.signalled { return nil }
            let sleeper = Task<Void, Never> { _ = try? await Task.sleep(for: timeout) }
            state.sleeper = sleeper
            return sleeper
        }
        await sleeper?.value
        // Whatever was signalled up to now is covered by the look that follows.
        state.withLock { state in
            state.signalled = false
            state.sleeper = nil
        }
    }
}
