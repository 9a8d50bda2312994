import Foundation
import Logging
internal import Stratus

/// Purges long-lived journal entries past their retention — finished operations 24 hours,
/// idempotent modifies an hour after they finished — once a minute, through the journal's
/// expiry index, whether or not their users ever list their operations (decision 0014.11).
/// Each round removes at most `batches` × `batchSize` entries, one transaction per batch; what
/// is left waits for the next round. Every stratusd runs it; the purge is idempotent.
struct LongLivedMaintenance: Sendable {
    let server: ServerState
    var interval: Duration = .seconds(60)
    var batchSize = 256
    var batches = 16

    /// Runs until the task is cancelled.
    func run() async {
        let maintenance = self
        await PeriodicWork(interval: interval, name: "long-lived journal purge", logger: server.logger).run {
            try await maintenance.once()
        }
    }

    /// One round; returns how many entries it purged.
    @discardableResult
    func once() async throws -> Int {
        let (engine, batchSize, batches) = (server.engine, batchSize, batches)
        let purged = try await server.executor.run(requestID: "maintenance") {
            try engine.purgeExpiredJournalEntries(batch: batchSize, maximumBatches: batches)
        }
        if purged > 0 {
            server.logger.info("purged expired long-lived journal entries", metadata: ["stratus.count": "\(purged)"])
        }
        return purged
    }
}
