import Foundation

/// A notification from a `CKRecordZoneSubscription`: records of a zone changed. Fetch the
/// changes with `CKFetchRecordZoneChangesOperation`.
public final class CKRecordZoneNotification: CKNotification, @unchecked Sendable {
    /// The zone whose records changed.
    public internal(set) var recordZoneID: CKRecordZone.ID?
    /// The database of the zone.
    public internal(set) var databaseScope: CKDatabase.Scope = .private

    init() {
        super.init(notificationType: .recordZone)
    }
}
