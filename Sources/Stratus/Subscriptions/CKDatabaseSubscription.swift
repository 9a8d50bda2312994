public import Foundation

/// A subscription to every change in a database (optionally only records of one type).
///
/// Supported in the private and shared databases; saving one in the public database fails
/// with `badDatabase` (the public database has no database change tracking).
public final class CKDatabaseSubscription: CKSubscription, @unchecked Sendable {
    /// If set, only changes to records of this type fire the subscription.
    public var recordType: CKRecord.RecordType?

    /// A subscription named `subscriptionID` to the database it is saved in.
    public init(subscriptionID: CKSubscription.ID) {
        super.init(subscriptionID: subscriptionID, subscriptionType: .database)
    }

    /// A subscription with a new unique name (deprecated in CloudKit: name your subscriptions).
    public convenience init() {
        self.init(subscriptionID: UUID().uuidString)
    }

    override func makeRow() throws(CKError) -> SubscriptionRow {
        if let recordType, let problem = Validation.recordTypeProblem(recordType) {
            throw CKError.make(.invalidArguments, problem)
        }
        return makeArchivedRow()
    }

    override func makeArchivedRow() -> SubscriptionRow {
        SubscriptionRow(
            subscriptionID: subscriptionID, kind: .database(recordType: recordType),
            notificationInfo: notificationInfo?.row)
    }

    /// Re-creates a database subscription archived with `encode(with:)`.
    public required init?(coder: NSCoder) {
        guard let row = CKSubscription.decodeRow(coder, type: .database),
            case .database(let recordType) = row.kind
        else { return nil }
        self.recordType = recordType
        super.init(subscriptionID: row.subscriptionID, subscriptionType: .database)
        self.notificationInfo = row.notificationInfo.map(CKSubscription.NotificationInfo.init(row:))
    }

    /// A description for debugging: the subscription's ID.
    public override var description: String {
        "<CKDatabaseSubscription: subscriptionID=\(subscriptionID)>"
    }
}
