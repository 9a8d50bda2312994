import Logging

/// Work a stratusd repeats on a timer (credential and asset maintenance): `body` every
/// `interval` until the task is cancelled; a failed round is logged and the next one still runs.
/// A round cancelled (by graceful shutdown) ends the work without a warning.
struct PeriodicWork: Sendable {
    var interval: Duration
    /// What the log's warning calls the work ("credential maintenance").
    var name: String
    let logger: Logger

    func run(_ body: @Sendable () async throws -> Void) async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            do {
                try await body()
            } catch is CancellationError {
                return
            } catch {
                logger.warning("\(name) failed", metadata: ["stratus.reason": "\(error)"])
            }
        }
    }
}
