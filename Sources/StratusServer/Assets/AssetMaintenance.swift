import Foundation
import Logging
internal import Stratus

/// Reads the server's HMAC key for asset tickets at start, then once a minute reads it again
/// (a rotated key takes effect) and purges staged asset content no record adopted within 24
/// hours (decision 0012.8). Every stratusd runs it; the purge is idempotent.
struct AssetMaintenance: Sendable {
    let server: ServerState
    var interval: Duration = .seconds(60)

    /// Reads the key; called before the server accepts requests.
    func prepare() async throws {
        let (keys, store) = (server.assetKeys, server.authStore)
        try await server.executor.run(requestID: "maintenance") { try keys.refresh(from: store) }
    }

    /// Runs until the task is cancelled.
    func run() async {
        let maintenance = self
        await PeriodicWork(interval: interval, name: "asset maintenance", logger: server.logger).run {
            try await maintenance.once()
        }
    }

    /// One round: the key again, then the purge.
    func once(now: Date = Date()) async throws {
        let (keys, store, engine) = (server.assetKeys, server.authStore, server.engine)
        let cutoff = now.addingTimeInterval(-TimeInterval(AssetReceipt.lifetime))
        let purged = try await server.executor.run(requestID: "maintenance") {
            try keys.refresh(from: store)
            return try engine.purgeStagedAssets(stagedBefore: cutoff)
        }
        if purged > 0 {
            server.logger.info("purged staged assets", metadata: ["stratus.count": "\(purged)"])
        }
    }
}
