import Foundation
import StratusBackend

/// One run's handle on a long-lived operation's journal entry: the operation's ID and the
/// sequence number its next journaled callback gets. Used on the operation's callback queue
/// only.
final class JournalSession {
    let journal: OperationJournal
    let state: JournalState
    /// The local engine's database the journal belongs to: replayed callbacks materialize
    /// their assets through it.
    let context: DatabaseContext
    let operationID: String
    /// Whether this run is a proxy's (it replays before it works).
    let isProxy: Bool
    /// stratusd's host of the run, if it runs there (decision 0014.9): the final callback is
    /// not marked delivered (nobody received it yet), and a suspended run stops.
    let host: LongLivedHost?
    /// The sequence number of the next callback this run journals or replays.
    private(set) var nextSequence: Int64 = 0

    init(context: DatabaseContext, operationID: String, isProxy: Bool) {
        self.journal = context.journal
        self.state = context.engine.journalState
        self.context = context
        self.operationID = operationID
        self.isProxy = isProxy
        self.host = nil
    }

    /// The session of a run stratusd hosts: a proxy's, in the host's journal.
    init(host: LongLivedHost, operationID: String) {
        self.journal = host.journal
        self.state = host.target.engine.journalState
        self.context = host.target
        self.operationID = operationID
        self.isProxy = true
        self.host = host
    }

    /// Whether the host suspended the run: it stops before its next step.
    var isSuspended: Bool { host?.isSuspended ?? false }

    /// Journals `events` in a transaction of their own; `final` marks the operation completed.
    func append(_ events: [[UInt8]], final: Bool) throws {
        nextSequence = try journal.append(operationID, events: events, at: nextSequence, final: final, now: state.now)
        host?.journaled()
    }

    /// Journals `events` inside `txn` (a modify's own transaction). The run moves past them
    /// with ``advance(by:)`` once the transaction committed: the body may run more than once.
    func append(_ events: [[UInt8]], final: Bool, in txn: any BackendWriteTransaction) throws {
        try journal.append(operationID, events: events, at: nextSequence, final: final, now: state.now, txn)
    }

    /// Moves past `count` callbacks journaled by ``append(_:final:in:)`` or replayed.
    func advance(by count: Int) {
        nextSequence += Int64(count)
        host?.journaled()
    }

    /// Records that the final callback was delivered: the operation leaves the list. A failure
    /// leaves it listed, so its callbacks are replayed once more rather than lost.
    func markDelivered() {
        guard host == nil else { return }
        _ = try? journal.finish(operationID, as: .delivered, now: state.now)
    }

    /// Records that the operation was cancelled: it leaves the list.
    func markCancelled() {
        _ = try? journal.finish(operationID, as: .cancelled, now: state.now)
    }
}
