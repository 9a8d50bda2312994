import Foundation

extension Process {
    /// Waits up to `seconds` for the process to exit, sleeping between looks: whether it
    /// exited. Foundation's `waitUntilExit()` has no bound, and on Linux it spins a core while
    /// it waits — a core the awaited process then lacks on a two-core machine.
    public func waitForExit(within seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning {
            guard Date() < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }
}
