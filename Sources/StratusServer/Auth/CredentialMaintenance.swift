import Foundation
import Logging

/// Once a minute, clears what the credentials no longer need (decision 0013.6): replay-guard
/// minutes past the signing window, and expired sessions. Every stratusd runs it; the work is
/// idempotent, so several on one store only repeat each other's clearing.
struct CredentialMaintenance: Sendable {
    let server: ServerState
    var interval: Duration = .seconds(60)

    /// Runs until the task is cancelled.
    func run() async {
        let (authenticator, store, executor) = (server.authenticator, server.authStore, server.executor)
        await PeriodicWork(interval: interval, name: "credential maintenance", logger: server.logger).run {
            try await executor.run(requestID: "maintenance") {
                try authenticator.purgeReplayGuard()
                try store.purgeExpiredSessions()
            }
        }
    }
}
