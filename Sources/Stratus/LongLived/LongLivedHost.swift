import Foundation
import Synchronization

/// What a long-lived operation run by stratusd (decision 0014.9) runs against instead of a
/// `CKDatabase`: the target database as the caller, and the journal of the caller's namespace.
///
/// Such a run is a proxy's (it catches up with whatever the journal holds, then works), its
/// callbacks go to the journal only, and its final callback leaves the operation `completed`
/// until the client says it was delivered. ``suspend()`` stops it at its next journal point
/// without finishing it, so another process can resume it (a graceful shutdown).
package final class LongLivedHost: Sendable {
    let target: DatabaseContext
    let journal: OperationJournal
    private let suspended = Atomic<Bool>(false)
    private let onJournal: @Sendable () -> Void

    init(target: DatabaseContext, journal: OperationJournal, onJournal: @escaping @Sendable () -> Void) {
        self.target = target
        self.journal = journal
        self.onJournal = onJournal
    }

    /// Called after the run journaled callbacks (their transaction committed): stratusd wakes
    /// the requests waiting for them (decision 0014.9).
    func journaled() { onJournal() }

    /// Stops the run before its next step of work; the journal entry stays `running`.
    package func suspend() { suspended.store(true, ordering: .relaxed) }

    /// Whether ``suspend()`` was called.
    package var isSuspended: Bool { suspended.load(ordering: .relaxed) }
}
