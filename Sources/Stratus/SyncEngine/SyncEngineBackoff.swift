/// How long automatic sync waits after a failure (a retryable one such as `serviceUnavailable`,
/// `requestRateLimited`, `zoneBusy`, `networkFailure`; or a look, a fetch or a send that failed
/// as a whole) before it sends or fetches again: exponentially longer after each failure in a
/// row, from ``first`` up to ``longest``, and at least the error's `retryAfterSeconds`
/// (honoured up to ``longestRetryAfter``). A success, also of an explicit `fetchChanges` /
/// `sendChanges` call, starts again from ``first``. Explicit calls do not wait.
struct SyncEngineBackoff: Sendable {
    /// The wait after the first failure.
    static let first: Duration = .seconds(1)
    /// The longest wait the doubling reaches.
    static let longest: Duration = .seconds(60)
    /// The longest `retryAfterSeconds` honoured.
    static let longestRetryAfter: Duration = .seconds(600)

    /// Failures in a row.
    private(set) var failures = 0
    /// When automatic sync may try again; `nil` when it need not wait.
    private(set) var notBefore: ContinuousClock.Instant?

    /// The wait after one more failure with `error`.
    static func delay(failures: Int, retryAfter: Double?) -> Duration {
        let doubled = first * (1 << min(max(failures - 1, 0), 16))
        let backoff = min(doubled, longest)
        guard let retryAfter, retryAfter > 0 else { return backoff }
        return max(backoff, min(.milliseconds(Int64(retryAfter * 1000)), longestRetryAfter))
    }

    /// Notes a failure at `now`.
    mutating func failed(with error: CKError, at now: ContinuousClock.Instant) {
        failures += 1
        notBefore = now + Self.delay(failures: failures, retryAfter: error.retryAfterSeconds)
    }

    /// Notes a success.
    mutating func succeeded() {
        failures = 0
        notBefore = nil
    }

    /// How long from `now` automatic sync must still wait (zero when it need not).
    func remaining(at now: ContinuousClock.Instant) -> Duration {
        guard let notBefore, notBefore > now else { return .zero }
        return notBefore - now
    }
}
