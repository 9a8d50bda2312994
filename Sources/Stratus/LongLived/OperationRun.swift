import Foundation

/// One run of a database operation (decision 0006): it opens the operation's journal entry if
/// the operation is long-lived (persisting it, then calling `longLivedOperationWasPersistedBlock`)
/// or is a proxy (then replays every journaled callback in order), and then does the rest of the
/// work live, one batch at a time: each batch is journaled before it is delivered.
///
/// Journal writes are compare-and-append (``OperationJournal``): when another run of the same
/// operation journaled first, this run replays what it wrote and continues from there, so no
/// callback is journaled twice and no work is applied twice.
struct OperationRun<Event: OperationEvent> {
    let operation: CKDatabaseOperation
    /// Where the work's requests go (decision 0016).
    let service: any DatabaseService
    let session: JournalSession?
    let deliver: (Event) -> Void
    /// The operation's start and end lines in the log.
    let log: OperationLog

    /// Replays, then works until the final callback is delivered or the operation stops.
    /// `work` does the next step of the work from what has been delivered so far (the
    /// operation's delivery state, updated by `deliver`).
    func run(work: (any DatabaseService, JournalSession?) throws -> OperationBatch<Event>) {
        if let session, session.isProxy {
            // stratusd logs its own resumptions (a claimed lease); a first run has nothing to say.
            if session.host == nil { log.resuming() }
            guard case .continue(let delivered) = catchUp() else { return }
            if session.host == nil { log.replayed(delivered) }
        }
        while true {
            // A suspended run (stratusd stopping) leaves the rest to the next process.
            if session?.isSuspended == true { return }
            let events: [Event]
            do {
                switch try work(service, session) {
                case .journaled(let journaled):
                    session?.advance(by: journaled.count)
                    events = journaled
                case .deliver(let batch):
                    try session?.append(batch.map(\.encoded), final: batch.contains { $0.isFinal })
                    events = batch
                }
            } catch let conflict as JournalConflict {
                guard resolve(conflict) else { return }
                continue
            } catch {
                let workError = CKError.fromStore(error)
                if workError.code == .operationCancelled && operation.isCancelled {
                    stop(cancelled: workError)
                    return
                }
                // The work failed: that is the operation's outcome, journaled like any other.
                let failure = Event.failed(workError)
                do {
                    try session?.append([failure.encoded], final: true)
                } catch let conflict as JournalConflict {
                    guard resolve(conflict) else { return }
                    continue
                } catch {
                    // Not journaled (the store failed too): report the work's own error.
                    fail(workError)
                    return
                }
                events = [failure]
            }
            for event in events {
                guard deliverOne(event) else { return }
            }
        }
    }

    /// How a replay ended.
    private enum CatchUp {
        /// The journal has nothing more; the work continues live. `delivered` callbacks were
        /// replayed.
        case `continue`(delivered: Int)
        /// The operation stopped: its final callback was delivered, it was cancelled, or it
        /// failed.
        case stopped
    }

    /// Delivers every journaled callback this run has not delivered yet, in order.
    private func catchUp() -> CatchUp {
        guard let session else { return .continue(delivered: 0) }
        var delivered = 0
        while true {
            let page: [(sequence: Int64, bytes: [UInt8])]
            do {
                page = try session.journal.events(session.operationID, from: session.nextSequence, limit: 128)
            } catch {
                fail(CKError.fromStore(error))
                return .stopped
            }
            if page.isEmpty { return .continue(delivered: delivered) }
            for (sequence, bytes) in page {
                var reader = ByteReader(bytes)
                guard sequence == session.nextSequence,
                    let event = try? Event.decode(from: &reader, context: session.context)
                else {
                    log.journalDamaged(at: sequence)
                    fail(
                        .make(
                            .internalError,
                            "the journal of long-lived operation \(session.operationID) is damaged at callback \(sequence)"
                        ))
                    return .stopped
                }
                session.advance(by: 1)
                delivered += 1
                guard deliverOne(event) else { return .stopped }
            }
        }
    }

    /// Handles a refused journal write; returns whether the work continues.
    private func resolve(_ conflict: JournalConflict) -> Bool {
        guard let session else { return false }
        switch conflict.reason {
        case .advanced, .notRunning(.completed), .notRunning(.delivered):
            // Another run got there first: deliver what it journaled, then go on from there.
            switch catchUp() {
            case .stopped:
                return false
            case .continue(let delivered):
                if delivered > 0, case .advanced = conflict.reason { return true }
                fail(
                    .make(
                        .internalError,
                        "the journal of long-lived operation \(session.operationID) ends without its final callback"))
                return false
            }
        case .notRunning(.cancelled):
            fail(.make(.operationCancelled, "the operation was cancelled"))
            return false
        case .notRunning(.running), .missing:
            fail(
                .make(
                    .unknownItem,
                    "long-lived operation \(session.operationID) is no longer in the journal (it was purged)"))
            return false
        }
    }

    /// Delivers one event; returns whether the operation goes on (not cancelled, not final).
    private func deliverOne(_ event: Event) -> Bool {
        if event.isCancellationPoint, let error = operation.cancellationError {
            stop(cancelled: error)
            return false
        }
        log.note(event.logRole)
        if event.isFinal { log.finish() }
        deliver(event)
        if event.isFinal {
            session?.markDelivered()
            return false
        }
        return true
    }

    /// Ends a cancelled operation: the journal says so (it leaves the list), then the final
    /// callback reports `operationCancelled`.
    private func stop(cancelled error: CKError) {
        session?.markCancelled()
        fail(error)
    }

    /// Delivers the operation's final callback with `error`, noting it for the log.
    private func fail(_ error: CKError) {
        log.finish(failingWith: error)
        operation.deliverCompletion(error: error)
    }
}

extension CKDatabaseOperation {
    /// Runs the operation's work through an ``OperationRun``: resolves the database, opens the
    /// journal entry (long-lived operations and proxies only), replays, then works.
    func run<Event: OperationEvent>(
        _ type: Event.Type, deliver: @escaping (Event) -> Void,
        work: (any DatabaseService, JournalSession?) throws -> OperationBatch<Event>
    ) {
        let log = longLived.host.map { OperationLog(self, host: $0) } ?? OperationLog(self, database: resolvedDatabase)
        defer { log.finish() }
        if longLived.origin != nil && database == nil {
            let error = CKError.make(.invalidArguments, "CKDatabaseOperations must be submitted to a CKDatabase")
            log.finish(failingWith: error)
            deliverCompletion(error: error)
            return
        }
        let service: any DatabaseService
        let session: JournalSession?
        do {
            service = try databaseService()
            if let journal = service.remoteJournal, runsOnServer {
                RemoteOperationRun(operation: self, journal: journal, scope: service.scope, deliver: deliver, log: log)
                    .run()
                return
            }
            session = try openJournal(service)
        } catch {
            let failure = CKError.fromStore(error)
            log.finish(failingWith: failure)
            deliverCompletion(error: failure)
            return
        }
        OperationRun(operation: self, service: service, session: session, deliver: deliver, log: log).run(work: work)
    }

    /// Whether a server runs this operation rather than this process (decision 0016.6): a
    /// long-lived operation of a remote container, or a proxy of one.
    private var runsOnServer: Bool {
        longLived.origin != nil || (longLived.isLongLivedAtStart && self is any LongLivedOperation)
    }

    /// The journal entry of this run: a proxy's existing one, a new one for an operation that
    /// was long-lived when it started (persisted, then announced with
    /// `longLivedOperationWasPersistedBlock`), or `nil`. The journal is the local engine's
    /// (decision 0016): a long-lived operation fails on a service without one.
    private func openJournal(_ service: any DatabaseService) throws -> JournalSession? {
        if let host = longLived.host {
            guard let header = try host.journal.header(operationID) else {
                throw CKError.make(
                    .unknownItem, "long-lived operation \(operationID) is not in the journal (it was purged)")
            }
            if header.state == .cancelled { throw CKError.make(.operationCancelled, "the operation was cancelled") }
            return JournalSession(host: host, operationID: operationID)
        }
        if longLived.origin != nil {
            let context = try journalContext(service)
            guard let header = try context.journal.header(operationID) else {
                throw CKError.make(
                    .unknownItem, "long-lived operation \(operationID) is not in the journal (it was purged)")
            }
            if header.state == .cancelled { throw CKError.make(.operationCancelled, "the operation was cancelled") }
            return JournalSession(context: context, operationID: operationID, isProxy: true)
        }
        guard longLived.isLongLivedAtStart, let coding = self as? any LongLivedOperation else { return nil }
        let context = try journalContext(service)
        var request = ByteWriter()
        try coding.encodeRequest(to: &request)
        let state = context.engine.journalState
        let header = JournalHeader(
            kind: type(of: coding).longLivedKind, scope: context.scope.rawValue, createdAt: state.now)
        state.announcing.withLock { _ = $0.insert(operationID) }
        defer { state.announcing.withLock { _ = $0.remove(operationID) } }
        try context.journal.create(operationID, header: header, request: request.bytes)
        longLivedOperationWasPersistedBlock?()
        return JournalSession(context: context, operationID: operationID, isProxy: false)
    }

    /// The local engine whose journal a long-lived run uses, or the error saying the service
    /// has none.
    private func journalContext(_ service: any DatabaseService) throws -> DatabaseContext {
        guard let context = service.localContext else {
            throw CKError.make(
                .internalError, "long-lived operations need a local engine; this container's database has none")
        }
        return context
    }
}
