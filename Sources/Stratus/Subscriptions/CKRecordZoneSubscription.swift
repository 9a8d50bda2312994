public import Foundation

/// A subscription to every change in one record zone (optionally only records of one type).
///
/// The zone must exist and support change fetching (a custom zone of the private database):
/// saving one for a missing zone fails with `zoneNotFound`, for the default zone with
/// `invalidArguments`. Not supported in the public and shared databases (`badDatabase`).
public final class CKRecordZoneSubscription: CKSubscription, @unchecked Sendable {
    /// The zone the subscription watches.
    public let zoneID: CKRecordZone.ID
    /// If set, only changes to records of this type fire the subscription.
    public var recordType: CKRecord.RecordType?

    /// A subscription named `subscriptionID` to the zone with `zoneID`.
    public init(zoneID: CKRecordZone.ID, subscriptionID: CKSubscription.ID) {
        self.zoneID = zoneID
        super.init(subscriptionID: subscriptionID, subscriptionType: .recordZone)
    }

    /// A subscription with a new unique name (deprecated in CloudKit: name your subscriptions).
    @available(macOS, deprecated: 10.12, message: "Use init(zoneID:subscriptionID:) instead")
    @available(iOS, deprecated: 10.0, message: "Use init(zoneID:subscriptionID:) instead")
    @available(tvOS, deprecated: 10.0, message: "Use init(zoneID:subscriptionID:) instead")
    @available(watchOS, deprecated: 3.0, message: "Use init(zoneID:subscriptionID:) instead")
    public convenience init(zoneID: CKRecordZone.ID) {
        self.init(zoneID: zoneID, subscriptionID: UUID().uuidString)
    }

    override func makeRow() throws(CKError) -> SubscriptionRow {
        if let recordType, let problem = Validation.recordTypeProblem(recordType) {
            throw CKError.make(.invalidArguments, problem)
        }
        return makeArchivedRow()
    }

    override func makeArchivedRow() -> SubscriptionRow {
        SubscriptionRow(
            subscriptionID: subscriptionID,
            kind: .recordZone(zoneID: SubscriptionRow.ZoneName(zoneID), recordType: recordType),
            notificationInfo: notificationInfo?.row)
    }

    /// Re-creates a zone subscription archived with `encode(with:)`.
    public required init?(coder: NSCoder) {
        guard let row = CKSubscription.decodeRow(coder, type: .recordZone),
            case .recordZone(let zoneID, let recordType) = row.kind
        else { return nil }
        self.zoneID = zoneID.zoneID
        self.recordType = recordType
        super.init(subscriptionID: row.subscriptionID, subscriptionType: .recordZone)
        self.notificationInfo = row.notificationInfo.map(CKSubscription.NotificationInfo.init(row:))
    }

    /// A description for debugging: ID and zone.
    public override var description: String {
        "<CKRecordZoneSubscription: subscriptionID=\(subscriptionID), zoneID=\(zoneID.zoneName):\(zoneID.ownerName)>"
    }
}
