import Foundation
import Synchronization

/// The long-lived operation journal's settings and in-process state, one per engine (that is,
/// per `CKContainer`).
final class JournalState: Sendable {
    /// How long finished operations are kept, and the clock that says what time it is.
    struct Settings: Sendable {
        /// How long a completed, undelivered operation stays listed (and finished operations'
        /// callbacks stay replayable) before it is purged: 24 hours, as in CloudKit.
        var retention: TimeInterval = 24 * 3600
        /// The journal's clock.
        var clock: @Sendable () -> Date = { Date() }
    }

    let settings = Mutex(Settings())
    /// Operations persisted by this process whose `longLivedOperationWasPersistedBlock` has not
    /// returned yet: this process does not list them until it has (invariant 55).
    let announcing = Mutex<Set<String>>([])

    /// The journal's current time, in seconds since 1970.
    var now: Double { settings.withLock { $0.clock }().timeIntervalSince1970 }
    /// The retention, in seconds.
    var retention: Double { settings.withLock { $0.retention } }
}

extension DatabaseContext {
    /// The long-lived operation journal of this database's container.
    var journal: OperationJournal {
        OperationJournal(engine: engine, keys: JournalKeys(containerNumber: containerNumber))
    }
}
