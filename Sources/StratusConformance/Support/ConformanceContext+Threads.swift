import Foundation
import Synchronization

extension ConformanceContext {
    /// Runs `body(0)`, …, `body(count - 1)` at the same time, each on a thread of its own, and
    /// returns when all of them have finished.
    ///
    /// Backend calls are synchronous and may block (on a writer lock, a busy database), so
    /// concurrent transactions need real threads. The calling task is suspended while they run,
    /// never blocked, so no cooperative-pool thread is held up.
    ///
    /// - Throws: the first ``ConformanceFailure`` any thread throws; any other error a thread
    ///   throws becomes a failure naming that thread.
    func onThreads(
        _ count: Int, _ body: @escaping @Sendable (_ index: Int) throws -> Void
    ) async throws {
        let failures = FailureCollector()
        let finished = DispatchGroup()
        for index in 0..<count {
            finished.enter()
            let thread = Thread { [self] in
                defer { finished.leave() }
                do {
                    try body(index)
                } catch let failure as ConformanceFailure {
                    failures.add(failure)
                } catch {
                    failures.add(
                        self.failure(
                            expected: "thread \(index) finishes without error",
                            actual: "error: \(error)"))
                }
            }
            thread.name = "conformance \(caseID) #\(index)"
            thread.start()
        }
        await withCheckedContinuation { continuation in
            finished.notify(queue: .global()) { continuation.resume() }
        }
        if let first = failures.first { throw first }
    }
}

/// The failures of the threads of one ``ConformanceContext/onThreads(_:_:)`` call.
private final class FailureCollector: Sendable {
    private let failures = Mutex<[ConformanceFailure]>([])

    func add(_ failure: ConformanceFailure) {
        failures.withLock { $0.append(failure) }
    }

    var first: ConformanceFailure? {
        failures.withLock { $0.first }
    }
}

/// A flag that one thread raises and others watch.
final class SharedFlag: Sendable {
    private let raised = Atomic(false)

    /// Raises the flag.
    func raise() { raised.store(true, ordering: .releasing) }

    /// Whether the flag was raised.
    var isRaised: Bool { raised.load(ordering: .acquiring) }
}

/// A number that one thread sets and others read.
final class SharedCounter: Sendable {
    private let storage = Atomic<UInt64>(0)

    /// The number last set.
    var value: UInt64 {
        get { storage.load(ordering: .acquiring) }
        set { storage.store(newValue, ordering: .releasing) }
    }
}
