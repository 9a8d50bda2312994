import Foundation
import Logging
import StratusTestSupport
import Synchronization
import Testing

@testable import StratusServer

/// The engine's threads, seen from the calls that wait for them.
@Suite struct EngineExecutorTests {
    /// A call whose task is cancelled while it waits for a thread does not run, and ends in
    /// `CancellationError`: not an internal failure, and nothing logged at error (a shutdown
    /// during an index build used to log `engine failure` and `declared index build failed`).
    @Test func aCallCancelledWhileWaitingIsCancelledNotFailed() async throws {
        let capture = LogCapture()
        let executor = EngineExecutor(threads: 1, maximumPending: 8, logger: capture.logger)
        executor.start()
        let release = Mutex(false)
        let occupied = Mutex(false)
        let ran = Mutex(false)
        let occupying = Task {
            try await executor.run(requestID: "occupying") {
                occupied.withLock { $0 = true }
                while !release.withLock({ $0 }) { usleep(1_000) }
            }
        }
        while !occupied.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        let waiting = Task {
            try await executor.run(requestID: "waiting") { ran.withLock { $0 = true } }
        }
        while executor.pendingCount < 2 { try await Task.sleep(for: .milliseconds(1)) }
        waiting.cancel()
        release.withLock { $0 = true }
        try await occupying.value
        await #expect(throws: CancellationError.self) { try await waiting.value }
        try await executor.shutdown()
        let didRun = ran.withLock { $0 }
        #expect(!didRun, "the cancelled call did not run")
        #expect(capture.entries.filter { $0.level >= .error }.isEmpty, "\(capture.entries)")
    }
}
