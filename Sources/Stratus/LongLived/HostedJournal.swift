import Foundation
import StratusBackend

/// The long-lived operation journal of one caller's namespace, as stratusd uses it (decision
/// 0014.8–11): submissions written with their lease in one transaction, listing, journaled
/// callbacks, cancellation and delivery, and the operations its ``LongLivedRunner`` runs.
///
/// Every user has a journal of their own (`04 (n_U)`), so nothing here can reach another
/// user's operations.
package struct HostedJournal: Sendable {
    let engine: Engine
    let journal: OperationJournal
    /// The journal's number: the caller's namespace number.
    package let number: Int64

    /// The journal of `owner`'s namespace (its owner is the caller's user record name).
    package init(engine: Engine, owner: Namespace) throws {
        let number = try engine.database(namespace: owner, scope: .private).containerNumber
        self.init(engine: engine, number: number)
    }

    /// The journal numbered `number` (a lease's).
    package init(engine: Engine, number: Int64) {
        self.engine = engine
        self.number = number
        self.journal = OperationJournal(engine: engine, keys: JournalKeys(containerNumber: number))
    }

    /// What a submission did.
    package enum Submitted: Sendable {
        /// The operation was persisted, with its lease for `holder`: the runner starts it.
        case created(HostedOperationStatus)
        /// The operation ID was already submitted with the same request: nothing was written.
        case existing(HostedOperationStatus)
    }

    /// How many submitted operations one user may have running at once (decision 0014.8): the
    /// next submission is refused with `requestRateLimited` (stratusd: 429 `THROTTLED`) until
    /// one finishes or is cancelled. Operations are queued four at a time per process, so a
    /// hundred is far more than a client needs in flight and keeps one user from filling a
    /// server's queue.
    package static let maximumRunningPerUser = 100

    /// The refusal of a submission beyond `maximum` running operations.
    static func tooManyRunning(_ maximum: Int) -> CKError {
        CKError.make(
            .requestRateLimited,
            "this user has \(maximum) submitted operations still running, the most allowed at once; "
                + "submit again once one has finished or was cancelled",
            userInfo: [CKErrorRetryAfterKey: 5.0])
    }

    /// Persists `submission` as operation `id` running as `target` against `scope`, with its
    /// lease for `holder` until `leaseExpiry`, in one transaction; an ID already submitted with
    /// the same class, target and request answers the existing entry.
    ///
    /// - Throws: ``LongLivedSubmissionError`` for a request that does not decode, or an ID
    ///   already used for another operation; a store failure as it is.
    package func submit(
        _ submission: LongLivedSubmission, id: String, target: JournalTarget, scope: CKDatabase.Scope, listed: Bool,
        holder: String, leaseExpiry: Double, maximumRunning: Int = maximumRunningPerUser
    ) throws -> Submitted {
        _ = try submission.decoded()
        var header = JournalHeader(kind: submission.operationClass, scope: scope.rawValue, createdAt: now)
        header.target = target
        header.isListed = listed
        let lease = LongLivedLease(journal: number, operationID: id)
        let outcome: Submitted? = try engine.writeLeavingGeneration { txn in
            if let bytes = try txn.get(journal.keys.header(id)) {
                let existing = try JournalHeader(decoding: bytes)
                guard existing.kind == header.kind, existing.target == target, existing.scope == header.scope,
                    try storedRequest(id, txn) == submission.request
                else { return nil }
                return .existing(HostedOperationStatus(id, existing))
            }
            guard try LongLivedLeases.runningCount(journal: number, upTo: maximumRunning, txn) < maximumRunning else {
                throw Self.tooManyRunning(maximumRunning)
            }
            try txn.set(journal.keys.header(id), header.encoded())
            for (index, part) in OperationJournal.parts(of: submission.request).enumerated() {
                try txn.set(journal.keys.request(id, part: Int64(index)), part)
            }
            try LongLivedLeases.set(lease, holder: holder, expiry: leaseExpiry, txn)
            return .created(HostedOperationStatus(id, header))
        }
        guard let outcome else {
            throw LongLivedSubmissionError(
                reason: "operation ID '\(id.prefix(256))' was already submitted for another operation")
        }
        return outcome
    }

    private func storedRequest(_ id: String, _ txn: any BackendWriteTransaction) throws -> [UInt8] {
        try OperationJournal.joined(try txn.scan(journal.keys.requests(id), limit: 1 << 16).map(\.value))
    }

    /// The journal's clock, in seconds since 1970.
    package var now: Double { engine.journalState.now }

    /// The status of operation `id`, or `nil` when this journal has none (never submitted,
    /// or purged).
    package func status(_ id: String) throws -> HostedOperationStatus? {
        try journal.header(id).map { HostedOperationStatus(id, $0) }
    }

    /// The IDs of the listed outstanding operations, oldest first, after purging those past
    /// their retention (0006.7; one hour for unlisted entries).
    package func outstandingIDs() throws -> [String] {
        try journal.outstanding(now: now, retention: engine.journalState.retention).map(\.id)
    }

    /// The journaled request of `id`, in the journal's encoding (0006.9).
    package func request(_ id: String) throws -> [UInt8]? {
        try journal.request(id)
    }

    /// Up to `limit` journaled callbacks of `id` from sequence `from`, in the journal's encoding.
    package func events(_ id: String, from: Int64, limit: Int) throws -> [(sequence: Int64, bytes: [UInt8])] {
        try journal.events(id, from: from, limit: limit)
    }

    /// Marks `id` cancelled if it is outstanding; returns whether it did.
    package func cancel(_ id: String) throws -> Bool {
        try journal.finish(id, as: .cancelled, now: now)
    }

    /// Marks `id` delivered if it completed; returns whether it did.
    package func markDelivered(_ id: String) throws -> Bool {
        try journal.finish(id, as: .delivered, now: now)
    }

    /// Finishes operation `id`, if it still runs, with `internalError` saying it was abandoned
    /// after `attempts` resumptions that never finished (decision 0014.10): its final callback is
    /// journaled like any failure's, so the client reads why. Returns whether it did.
    package func abandon(_ id: String, attempts: Int64) throws -> Bool {
        guard let header = try journal.header(id), header.state == .running,
            let operation = LongLivedOperationKinds.make(header.kind)
        else { return false }
        let error = CKError.make(
            .internalError,
            "long-lived operation '\(id.prefix(256))' was abandoned after \(attempts) attempts to resume it: "
                + "each run stopped without finishing (its stratusd exited or failed)")
        do {
            try journal.append(
                id, events: [Self.failedEvent(of: operation, error)], at: header.nextSequence, final: true, now: now)
            return true
        } catch is JournalConflict {
            return false
        }
    }

    private static func failedEvent<Operation: LongLivedOperation>(of operation: Operation, _ error: CKError)
        -> [UInt8]
    {
        Operation.failedEvent(error)
    }

    /// The operation `id` configured from its journaled request, to run against its target as
    /// its caller with its callbacks going to this journal; `nil` when it is not running (or
    /// not in the journal). Its ``LongLivedHost`` suspends it; `onJournal` is called after
    /// each of its journal writes committed.
    package func runnableOperation(_ id: String, onJournal: @escaping @Sendable () -> Void = {}) throws -> (
        operation: CKDatabaseOperation, host: LongLivedHost
    )? {
        guard let header = try journal.header(id), header.state == .running, let target = header.target,
            let scope = CKDatabase.Scope(rawValue: header.scope), let request = try journal.request(id)
        else { return nil }
        let operation = try LongLivedSubmission(operationClass: header.kind, request: request).decoded()
        let context = try engine.database(namespace: target.namespace, scope: scope, caller: target.caller)
        let host = LongLivedHost(target: context, journal: journal, onJournal: onJournal)
        operation.operationID = id
        operation.configuration.isLongLived = header.isListed
        operation.longLived.host = host
        return (operation, host)
    }
}
