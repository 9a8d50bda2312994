public import Foundation

/// Stratus extensions (not in CloudKit): how long finished long-lived operations are kept, and
/// the clock the journal reads — for apps that want another retention, and for tests.
extension CKContainer {
    /// How long a long-lived operation that completed without its final callback being
    /// delivered stays listed and fetchable (default 24 hours, as in CloudKit). After that it is
    /// purged, with its journaled callbacks, the next time the container lists or fetches
    /// long-lived operations. Delivered and cancelled operations leave the list at once; their
    /// journal entries are purged after the same time. Running operations are never purged.
    ///
    /// The setting belongs to this `CKContainer` instance (it is not stored).
    public var longLivedOperationRetention: TimeInterval {
        get { journalState?.settings.withLock { $0.retention } ?? 24 * 3600 }
        set { journalState?.settings.withLock { $0.retention = newValue } }
    }

    /// The clock the long-lived journal reads: when operations were persisted and finished, and
    /// what has outlived `longLivedOperationRetention` (default: the system clock). Tests
    /// inject a clock to check retention without waiting a day.
    ///
    /// The setting belongs to this `CKContainer` instance (it is not stored).
    public var longLivedOperationClock: @Sendable () -> Date {
        get { journalState?.settings.withLock { $0.clock } ?? { Date() } }
        set { journalState?.settings.withLock { $0.clock = newValue } }
    }

    private var journalState: JournalState? { try? engine.get().journalState }
}
