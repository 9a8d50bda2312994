import Synchronization

/// Tells observers in this process that a write committed to a store, whichever handle (backend
/// object, container, engine) made it: a sync engine on the same store fetches at once instead
/// of waiting for its next look at the change log (decision 0017.7).
///
/// One signal per store, found by the store's identity (``Engine/storeID``, read from the store
/// itself), so two handles opened on one SQLite file, LMDB directory, PostgreSQL schema or
/// in-memory store share it. Commits of other processes are not signalled: the sync engine's
/// poll covers them.
///
/// A signal names the handle that committed — the backend object, whose containers and engines
/// are one "device" — so a sync engine can ignore its own device's commits, as CloudKit does
/// not push a change to the device it came from.
final class StoreChangeSignal: Sendable {
    private struct Observers {
        var next = 0
        var handlers: [Int: @Sendable (ObjectIdentifier) -> Void] = [:]
    }

    private let observers = Mutex(Observers())

    /// Tells every observer that a write through the handle `origin` names committed (after
    /// the commit).
    func send(origin: ObjectIdentifier) {
        let handlers = observers.withLock { $0.handlers.isEmpty ? [] : Array($0.handlers.values) }
        for handler in handlers { handler(origin) }
    }

    /// Calls `handler` with the committing handle after each commit to the store until the
    /// returned observation is cancelled. `handler` runs on the committing thread: it must only
    /// schedule work.
    func observe(_ handler: @escaping @Sendable (ObjectIdentifier) -> Void) -> Observation {
        let id = observers.withLock { observers in
            observers.next += 1
            observers.handlers[observers.next] = handler
            return observers.next
        }
        return Observation(signal: self, id: id)
    }

    /// An observer's registration; ``cancel()`` ends it.
    struct Observation: Sendable {
        let signal: StoreChangeSignal
        let id: Int

        /// Stops calling the observer.
        func cancel() {
            signal.observers.withLock { _ = $0.handlers.removeValue(forKey: id) }
        }
    }

    /// The signal of the store with `storeID`: one per store in the process, for as long as an
    /// engine on it lives.
    static func shared(storeID: [UInt8]) -> StoreChangeSignal {
        registry.withLock { entries in
            entries = entries.filter { $0.value.signal != nil }
            if let signal = entries[storeID]?.signal { return signal }
            let signal = StoreChangeSignal()
            entries[storeID] = Entry(signal: signal)
            return signal
        }
    }

    private struct Entry: @unchecked Sendable {
        weak var signal: StoreChangeSignal?
    }

    private static let registry = Mutex<[[UInt8]: Entry]>([:])
}
