import Dispatch
import StratusBackend
import Synchronization

/// The next batch of a zone's changes, read on another thread while the operation delivers
/// the batch before it (decision 0009).
///
/// A `CKFetchRecordZoneChangesOperation` that fetches all changes alternates between reading a
/// batch (a read transaction, decoding) and delivering it (the app's callbacks). Once a batch
/// with more coming is read, the next one starts from its token at once, so the app's
/// callbacks and the next read run side by side. The read-ahead is only used when the
/// operation then asks for exactly that batch (same zone, same token object) and no write
/// finished since it started through any engine of this process over the same backend
/// (``WriteGeneration``) — so what the app wrote from its callbacks is never hidden by a batch
/// read before it; otherwise it is discarded and the batch read again.
/// Nothing is written, so a discarded or late read-ahead changes nothing. The read goes through
/// the operation's ``DatabaseService``; only the write generation is the local engine's, so a
/// service without a local engine (decision 0016) is never read ahead of. Each decision is
/// logged at debug level: `read-ahead batch used`, or `read-ahead batch discarded` with
/// ``LogKey/reason`` `write`, `zone`, `token` or `unused` (`Docs/Logging.md`).
///
/// One operation thread uses it: `start` and `take` are not called concurrently; `finish` may
/// be called from anywhere, any number of times.
final class ZoneChangesReadAhead: Sendable {
    private struct Pending: Sendable {
        var zoneID: CKRecordZone.ID
        var token: CKServerChangeToken
        /// The backend's writes, counted before the read began.
        var writes: WriteGeneration
        var generation: UInt64
        var done: DispatchSemaphore
        var result: ResultBox
        /// The engine's logger.
        var logger: Logger
        /// The operation reading ahead, for the log.
        var operationID: String

        /// Logs a decision about this read-ahead at debug level (no string is built when
        /// debug is off).
        func log(_ message: Logger.Message, reason: String? = nil) {
            logger.debug(
                message,
                metadata: {
                    var metadata: Logger.Metadata = [
                        LogKey.operationID: "\(operationID)", LogKey.zone: "\(zoneID.zoneName)",
                    ]
                    if let reason { metadata[LogKey.reason] = "\(reason)" }
                    return metadata
                }())
        }
    }

    /// Where the reading thread leaves its result.
    private final class ResultBox: Sendable {
        let value = Mutex<Result<ZoneChangesBatch, any Error>?>(nil)
    }

    private let pending = Mutex<Pending?>(nil)

    /// Starts reading the batch of `zoneID` after `token` through `service` on another thread,
    /// discarding any read-ahead not taken. Does nothing more when `service` has no local
    /// engine: there is no write generation to tell a stale batch by.
    func start(
        _ service: any DatabaseService, zoneID: CKRecordZone.ID, token: CKServerChangeToken, limit: Int,
        desiredKeys: [String]?, qos: DispatchQoS.QoSClass, operationID: String
    ) {
        finish()
        guard let engine = service.localContext?.engine else { return }
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox()
        let writes = engine.writeGeneration
        let generation = writes.value
        pending.withLock {
            $0 = Pending(
                zoneID: zoneID, token: token, writes: writes, generation: generation, done: done, result: result,
                logger: engine.logger, operationID: operationID)
        }
        DispatchQueue.global(qos: qos).async {
            let batch = Result {
                try service.fetchZoneChanges(zoneID, since: token, limit: limit, desiredKeys: desiredKeys)
            }
            result.value.withLock { $0 = batch }
            done.signal()
        }
    }

    /// The read-ahead batch of `zoneID` after `token`, waiting for it if it is still being
    /// read; `nil` when none was started for exactly those, or when the backend was written
    /// since it started (it is then discarded).
    func take(zoneID: CKRecordZone.ID, token: CKServerChangeToken?) -> Result<ZoneChangesBatch, any Error>? {
        guard let started = pending.withLock({ $0.take() }) else { return nil }
        started.done.wait()
        if let reason = Self.discardReason(started, zoneID: zoneID, token: token) {
            started.log("read-ahead batch discarded", reason: reason)
            return nil
        }
        started.log("read-ahead batch used")
        return started.result.value.withLock { $0 }
    }

    /// Why `started` is not the batch of `zoneID` after `token`, or `nil` when it is and no
    /// write finished since it began.
    private static func discardReason(
        _ started: Pending, zoneID: CKRecordZone.ID, token: CKServerChangeToken?
    ) -> String? {
        if started.zoneID != zoneID { return "zone" }
        guard let token, started.token === token else { return "token" }
        if started.writes.value != started.generation { return "write" }
        return nil
    }

    /// Waits for a read-ahead still running and discards it: called before the operation
    /// finishes, so that no read of it outlives the operation.
    func finish() {
        guard let started = pending.withLock({ $0.take() }) else { return }
        started.done.wait()
        started.log("read-ahead batch discarded", reason: "unused")
    }
}
