import Foundation
import Stratus

/// How a notification sequence waits before polling again (decision 0016.7): after a failure a
/// retry may cure, with jittered exponential backoff from 0.2 s up to 5 s (a server's
/// `retryAfter` honoured up to a minute), back to the start after an answer.
struct RemoteNotificationBackoff: Sendable {
    /// The first wait.
    static let first = 0.2
    /// The longest wait between two polls, whatever failed.
    static let longest = 5.0
    /// The longest `retryAfter` honoured.
    static let longestRetryAfter = 60.0

    private var next = first

    /// The wait before the next poll after `error` (or after an answer that came back too soon,
    /// when `nil`), growing each time.
    mutating func delay(after error: CKError? = nil) -> Double {
        let base = next
        next = min(next * 2, Self.longest)
        let jittered = base / 2 + Double.random(in: 0...(base / 2))
        guard let retryAfter = error?.retryAfterSeconds else { return jittered }
        return min(max(retryAfter, jittered), Self.longestRetryAfter)
    }

    /// An answer came: the next failure waits the first delay again.
    mutating func reset() {
        next = Self.first
    }

    /// Whether `error` ends the sequence: the server refused who is asking or what they name
    /// (credentials, permission, container). Anything else — a server that cannot be reached,
    /// a broken connection, a restart, a 5xx, 503/429, an answer that cannot be read — is
    /// waited out.
    static func ends(_ error: CKError) -> Bool {
        [.notAuthenticated, .permissionFailure, .badContainer].contains(error.code)
    }

    /// Waits `seconds`; `false` when the task was cancelled meanwhile.
    static func sleep(_ seconds: Double) async -> Bool {
        try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        return !Task.isCancelled
    }
}

extension RemoteNotificationBackoff {
    /// Whether `error` says the server could not be reached or answer for now.
    static func isTransient(_ error: CKError) -> Bool {
        [
            .networkUnavailable, .networkFailure, .serverResponseLost, .serviceUnavailable, .requestRateLimited,
            .zoneBusy,
        ]
        .contains(error.code)
    }
}
