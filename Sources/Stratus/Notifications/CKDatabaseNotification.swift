import Foundation

/// A notification from a `CKDatabaseSubscription`: zones of a database changed. Fetch the
/// changes with `CKFetchDatabaseChangesOperation`.
public final class CKDatabaseNotification: CKNotification, @unchecked Sendable {
    /// The database that changed.
    public internal(set) var databaseScope: CKDatabase.Scope = .private

    init() {
        super.init(notificationType: .database)
    }
}
