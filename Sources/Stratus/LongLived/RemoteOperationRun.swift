import Foundation

/// One run of a long-lived operation whose engine is a server's (decision 0016.6): the server
/// persists the operation, runs it and journals its callbacks; this run submits it (unless it
/// is a proxy of one already submitted), calls `longLivedOperationWasPersistedBlock` once the
/// server holds it, then delivers the journaled callbacks in order as they come — replay, then
/// live — and tells the server when the final one was delivered. The work never runs here, so
/// the app may exit at any point: another process's proxy delivers what this one did not.
struct RemoteOperationRun<Event: OperationEvent> {
    let operation: CKDatabaseOperation
    let journal: any RemoteLongLivedJournal
    let scope: CKDatabase.Scope
    let deliver: (Event) -> Void
    let log: OperationLog

    /// How long one events request waits for the next callback: short enough that a cancelled
    /// operation notices within it.
    static var pollSeconds: Double { 5 }

    /// Submits (an operation the app made) or resumes (a proxy), then delivers every callback.
    func run() {
        if operation.longLived.origin == nil {
            guard submit() else { return }
        } else {
            log.resuming()
        }
        var next: Int64 = 0
        var endedEmpty = false
        while true {
            if let error = operation.cancellationError {
                stop(cancelled: error)
                return
            }
            let page: RemoteJournalPage
            do {
                page = try journal.events(operation.operationID, from: next, wait: Self.pollSeconds)
            } catch {
                fail(CKError.fromStore(error))
                return
            }
            for (sequence, bytes) in page.events where sequence >= next {
                // One already delivered is skipped; a gap fails the operation rather than
                // skipping a callback or leaving the operation without its final one.
                guard sequence == next else {
                    fail(
                        .make(
                            .internalError,
                            "callback \(next) of long-lived operation \(operation.operationID) is missing"))
                    return
                }
                guard let event = decode(bytes, sequence) else { return }
                next += 1
                guard deliverOne(event) else { return }
            }
            // An answer may read the journal just before the final callback was written and
            // the operation's state just after (another server finishing it, under load): an
            // empty page of an ended operation is believed only when a second read agrees.
            guard page.events.isEmpty && !page.isRunning else {
                endedEmpty = false
                continue
            }
            if !endedEmpty {
                endedEmpty = true
                continue
            }
            fail(
                .make(
                    .internalError,
                    "long-lived operation \(operation.operationID) ended on the server without its final callback"))
            return
        }
    }

    /// Persists the operation on the server, then announces it; returns whether it was.
    private func submit() -> Bool {
        do {
            let submission = try LongLivedSubmission(encoding: operation)
            try journal.submit(operation.operationID, scope: scope, submission: submission)
        } catch let error as LongLivedSubmissionError {
            fail(.make(.invalidArguments, error.reason))
            return false
        } catch {
            fail(CKError.fromStore(error))
            return false
        }
        operation.longLivedOperationWasPersistedBlock?()
        return true
    }

    /// The event journaled as `bytes`, or `nil` after failing the operation when it cannot be
    /// read.
    private func decode(_ bytes: [UInt8], _ sequence: Int64) -> Event? {
        var reader = ByteReader(bytes)
        guard let event = try? Event.decode(from: &reader, context: nil), reader.remaining == 0 else {
            log.journalDamaged(at: sequence)
            fail(
                .make(
                    .internalError,
                    "callback \(sequence) of long-lived operation \(operation.operationID) cannot be read"))
            return nil
        }
        return event
    }

    /// Delivers one event; returns whether the operation goes on (not cancelled, not final).
    private func deliverOne(_ event: Event) -> Bool {
        switch log.deliver(event, of: operation, to: deliver) {
        case .more:
            return true
        case .final:
            // Not recorded: the operation stays listed and a later proxy delivers it again,
            // rather than losing it.
            try? journal.markDelivered(operation.operationID)
            return false
        case .cancelled(let error):
            stop(cancelled: error)
            return false
        }
    }

    /// Ends a cancelled operation: the server stops it, then the final callback reports it.
    private func stop(cancelled error: CKError) {
        try? journal.cancel(operation.operationID)
        fail(error)
    }

    /// Delivers the operation's final callback with `error`.
    private func fail(_ error: CKError) {
        log.finish(failingWith: error)
        operation.deliverCompletion(error: error)
    }
}
