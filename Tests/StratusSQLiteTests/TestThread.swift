import Foundation
import Synchronization

/// A body running on a thread of its own, for tests that need two threads inside
/// synchronous transaction bodies at once.
final class TestThread<T: Sendable>: Sendable {
    private let outcome = Mutex<Result<T, any Error>?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `body` on a new thread.
    init(_ body: @escaping @Sendable () throws -> T) {
        let thread = Thread { [self] in
            let result = Result { try body() }
            outcome.withLock { $0 = result }
            finished.signal()
        }
        thread.start()
    }

    /// Waits for the body to finish and returns what it returned, or throws what it threw.
    func join() throws -> T {
        finished.wait()
        finished.signal()
        return try outcome.withLock { $0! }.get()
    }
}

/// A flag one thread raises to tell another to stop.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    /// Whether ``stop()`` was called.
    var isStopped: Bool { flag.load(ordering: .acquiring) }

    /// Raises the flag.
    func stop() { flag.store(true, ordering: .releasing) }
}
