import Logging
import StratusTestSupport
import Synchronization
import Testing

@testable import StratusServer

/// The timer of stratusd's maintenance work.
@Suite struct PeriodicWorkTests {
    /// A failed round is logged and the next one runs; a round cancelled (graceful shutdown
    /// cancels the engine call it waits for) ends the work, without a warning.
    @Test func aFailedRoundIsLoggedAndACancelledOneEndsTheWork() async {
        struct Failure: Error {}
        let capture = LogCapture()
        let rounds = Mutex(0)
        let work = PeriodicWork(interval: .milliseconds(1), name: "test maintenance", logger: capture.logger)
        await work.run {
            let round = rounds.withLock { rounds in
                rounds += 1
                return rounds
            }
            if round == 1 { throw Failure() }
            if round == 2 { throw CancellationError() }
            // Only reached if the cancelled round did not end the work: end it here, so that the
            // test fails on the count instead of running forever.
            withUnsafeCurrentTask { $0?.cancel() }
        }
        #expect(rounds.withLock { $0 } == 2, "the work ran again after a failed round, and stopped when cancelled")
        let warnings = capture.entries.filter { $0.level >= .warning }
        #expect(warnings.count == 1, "\(warnings)")
        #expect(warnings.first?.message.description == "test maintenance failed")
    }
}
