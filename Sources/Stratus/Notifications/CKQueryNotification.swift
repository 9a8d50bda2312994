import Foundation

/// A notification from a `CKQuerySubscription`: a record matching its predicate was created,
/// changed or deleted.
public final class CKQueryNotification: CKNotification, @unchecked Sendable {
    /// What happened to the record.
    public enum Reason: Int, Sendable {
        /// The record was created.
        case recordCreated = 1
        /// The record was changed.
        case recordUpdated = 2
        /// The record was deleted.
        case recordDeleted = 3
    }

    /// What happened to the record.
    public internal(set) var queryNotificationReason: CKQueryNotification.Reason = .recordCreated
    /// The fields the subscription's `desiredKeys` asked for, with their values.
    public internal(set) var recordFields: [CKRecord.FieldKey: Any]?
    /// The ID of the record that changed.
    public internal(set) var recordID: CKRecord.ID?
    /// The database of the record that changed.
    public internal(set) var databaseScope: CKDatabase.Scope = .private

    /// Whether the record is in the public database (deprecated in CloudKit: use
    /// `databaseScope`).
    public var isPublicDatabase: Bool { databaseScope == .public }

    init() {
        super.init(notificationType: .query)
    }
}
