import Foundation
import Stratus

/// When a remote request is sent again (decision 0016.5): a request that cannot be applied
/// twice — a read, or a modify carrying an operation ID — after a failure that a retry may cure,
/// a few times with jittered exponential backoff.
struct RemoteRetry: Sendable {
    /// How many times the request is sent at most.
    var attempts: Int

    /// Reads, and writes made idempotent: the first try and three retries.
    static let idempotent = RemoteRetry(attempts: 4)
    /// Writes that a second application could change (zones and subscriptions modifies): once.
    static let once = RemoteRetry(attempts: 1)

    /// The longest `retryAfter` waited for here; a longer one reaches the operation as its
    /// error's `retryAfterSeconds`, for the app to honour as CloudKit's do.
    static let longestWait: Double = 3

    /// `body`'s result, sending it again after a retryable failure.
    func run<T>(_ body: () throws(CKError) -> T) throws(CKError) -> T {
        var attempt = 1
        while true {
            do {
                return try body()
            } catch {
                guard attempt < attempts, let delay = Self.delay(before: attempt + 1, after: error) else { throw error }
                Thread.sleep(forTimeInterval: delay)
                attempt += 1
            }
        }
    }

    /// The wait before try `attempt` after `error`; `nil` when `error` is not worth a retry.
    static func delay(before attempt: Int, after error: CKError) -> Double? {
        switch error.code {
        // `networkUnavailable` is not among them: the HTTP client already retried connecting
        // until the server's `connectTimeout`.
        case .networkFailure, .serverResponseLost:
            let base = 0.05 * pow(2, Double(attempt - 2))
            return base + Double.random(in: 0...base)
        case .serviceUnavailable, .requestRateLimited, .zoneBusy:
            let wait = error.retryAfterSeconds ?? 1
            return wait <= longestWait ? wait + Double.random(in: 0...0.1) : nil
        default:
            return nil
        }
    }
}
