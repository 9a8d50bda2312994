import Foundation
import StratusBackend

/// An operation's two lines in the log (`Docs/Logging.md`), at debug level: `operation started`
/// with what it was asked for, and `operation finished`, just before the final callback, with
/// what it delivered, its outcome and its duration. Both carry the operation's ID, class,
/// database and container.
///
/// Only identifiers, counts and durations are logged, never a record's content. Metadata is
/// built inside swift-log's autoclosures, so a level that is off costs no string. One run uses
/// it, on the operation's queue.
final class OperationLog {
    private let logger: Logger
    private let operation: CKDatabaseOperation
    private let scope: CKDatabase.Scope
    private let containerName: String?
    private let started = ContinuousClock.now
    private var delivered = 0
    private var failed = 0
    private var finalError: CKError?
    private var isFinished = false

    /// Logs the start of `operation`'s run against `database`.
    init(_ operation: CKDatabaseOperation, database: CKDatabase) {
        self.logger = database.container.logger
        self.operation = operation
        self.scope = database.databaseScope
        self.containerName = database.container.containerIdentifier
        logger.debug("operation started", metadata: startMetadata())
    }

    /// Logs the start of `operation`'s run hosted by stratusd (decision 0014.9).
    init(_ operation: CKDatabaseOperation, host: LongLivedHost) {
        self.logger = host.target.engine.logger
        self.operation = operation
        self.scope = host.target.scope
        self.containerName = nil
        logger.debug("operation started", metadata: startMetadata())
    }

    /// The metadata every line of the operation carries, with `more`.
    private func metadata(_ more: Logger.Metadata) -> Logger.Metadata {
        var metadata = more
        metadata[LogKey.operationID] = "\(operation.operationID)"
        metadata[LogKey.operationKind] = "\(type(of: operation))"
        metadata[LogKey.database] = "\(scope)"
        if let container = containerName {
            metadata[LogKey.container] = "\(container)"
        }
        if operation.longLived.isLongLivedAtStart || operation.longLived.origin != nil
            || operation.longLived.host != nil
        {
            metadata[LogKey.longLived] = "true"
        }
        return metadata
    }

    /// The start line's metadata: the zones and item count the operation names.
    private func startMetadata() -> Logger.Metadata {
        let request = OperationRequestSummary(operation)
        var more: Logger.Metadata = [:]
        if let zones = request.zones { more[LogKey.zones] = .array(zones.map { .string($0) }) }
        if let count = request.count { more[LogKey.count] = "\(count)" }
        return metadata(more)
    }

    /// Counts one delivered callback.
    func note(_ role: OperationLogRole) {
        switch role {
        case .item(let succeeded):
            delivered += 1
            if !succeeded { failed += 1 }
        case .zoneFailed: failed += 1
        case .progress: break
        case .final(let error): finalError = error
        }
    }

    /// Logs the end of a run whose final callback reports `error` outside the events (a
    /// failure before the work, a cancellation, a damaged journal): called just before it.
    func finish(failingWith error: CKError) {
        finalError = error
        finish()
    }

    /// Logs, at info level, that a long-lived operation's proxy starts replaying its journal:
    /// before any callback, so the line is out before the app could act on the final one.
    func resuming() {
        logger.info("long-lived operation resuming from its journal", metadata: metadata([:]))
    }

    /// Logs, at info level, that a proxy replayed `count` journaled callbacks and goes on with
    /// the work its interrupted run left (a replay that ends the operation says so in
    /// `operation finished`).
    func replayed(_ count: Int) {
        logger.info("long-lived operation replayed; resuming its work", metadata: metadata([LogKey.count: "\(count)"]))
    }

    /// Logs, at error level, that a journaled callback of a long-lived operation cannot be
    /// read: the proxy fails with `internalError` instead of skipping it.
    func journalDamaged(at sequence: Int64) {
        logger.error(
            "long-lived operation's journal is damaged; the operation fails instead of skipping the callback",
            metadata: metadata([LogKey.journalSequence: "\(sequence)"]))
    }

    /// Logs the end of the run, once: called just before the final callback is delivered (a
    /// process may exit from it), and again when the run returns, which then does nothing.
    func finish() {
        guard !isFinished else { return }
        isFinished = true
        let duration = ContinuousClock.now - started
        logger.debug(
            "operation finished",
            metadata: metadata([
                LogKey.count: "\(delivered)", LogKey.failedCount: "\(failed)",
                LogKey.durationMilliseconds: .milliseconds(duration),
                LogKey.error: finalError.map { "\($0.code.name)" } ?? "none",
            ]))
    }
}

/// What an operation was asked for, for its `operation started` line: the zones it names and
/// how many items (records, zones, subscriptions) it saves, deletes or fetches. `nil` when the
/// operation names none (a query without a zone, all zones, database changes).
struct OperationRequestSummary {
    var zones: [String]?
    var count: Int?

    init(_ operation: CKDatabaseOperation) {
        switch operation {
        case let modify as CKModifyRecordsOperation:
            let ids = (modify.recordsToSave ?? []).map(\.recordID) + (modify.recordIDsToDelete ?? [])
            self.init(zones: ids.map(\.zoneID), count: ids.count)
        case let fetch as CKFetchRecordsOperation:
            self.init(zones: (fetch.recordIDs ?? []).map(\.zoneID), count: fetch.recordIDs?.count ?? 0)
        case let query as CKQueryOperation:
            self.init(zones: (query.zoneID ?? query.cursor?.zoneID).map { [$0] }, count: nil)
        case let changes as CKFetchRecordZoneChangesOperation:
            self.init(zones: changes.recordZoneIDs ?? [], count: nil)
        case let zones as CKFetchRecordZonesOperation:
            self.init(zones: zones.recordZoneIDs, count: zones.recordZoneIDs?.count)
        case let zones as CKModifyRecordZonesOperation:
            let ids = (zones.recordZonesToSave ?? []).map(\.zoneID) + (zones.recordZoneIDsToDelete ?? [])
            self.init(zones: ids, count: ids.count)
        case let subscriptions as CKFetchSubscriptionsOperation:
            self.init(zones: nil, count: subscriptions.subscriptionIDs?.count)
        case let subscriptions as CKModifySubscriptionsOperation:
            self.init(
                zones: nil,
                count: (subscriptions.subscriptionsToSave?.count ?? 0)
                    + (subscriptions.subscriptionIDsToDelete?.count ?? 0))
        default:
            self.init(zones: nil, count: nil)
        }
    }

    private init(zones: [CKRecordZone.ID]?, count: Int?) {
        if let zones {
            var seen = Set<String>()
            self.zones = zones.map(\.zoneName).filter { seen.insert($0).inserted }
        }
        self.count = count
    }
}
