public import Foundation
import StratusPredicate

/// A subscription to the records of one type that match a predicate, optionally in one zone.
///
/// Not supported in the shared database (saving one there fails with `badDatabase`). The
/// predicate must be one CloudKit queries accept (`NSPredicate(format:)` or
/// `NSPredicate(value:)`); otherwise the save fails with `invalidArguments`. The options must
/// name at least one of creation, update and deletion.
public final class CKQuerySubscription: CKSubscription, @unchecked Sendable {
    /// When a query subscription fires.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The options' raw value.
        public let rawValue: UInt
        /// Creates options from their raw value.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Fire when a matching record is created.
        public static let firesOnRecordCreation = Options(rawValue: 1 << 0)
        /// Fire when a matching record is changed.
        public static let firesOnRecordUpdate = Options(rawValue: 1 << 1)
        /// Fire when a matching record is deleted.
        public static let firesOnRecordDeletion = Options(rawValue: 1 << 2)
        /// Fire once, then delete the subscription.
        public static let firesOnce = Options(rawValue: 1 << 3)
    }

    /// The type of the records the subscription watches.
    public let recordType: CKRecord.RecordType?
    /// The predicate records must match.
    public let predicate: NSPredicate
    /// The zone whose records the subscription watches; `nil` for every zone.
    public var zoneID: CKRecordZone.ID?
    /// When the subscription fires.
    public let querySubscriptionOptions: CKQuerySubscription.Options

    /// A subscription named `subscriptionID` to records of `recordType` matching `predicate`.
    public init(
        recordType: CKRecord.RecordType, predicate: NSPredicate, subscriptionID: CKSubscription.ID,
        options querySubscriptionOptions: CKQuerySubscription.Options = [
            .firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion,
        ]
    ) {
        self.recordType = recordType
        self.predicate = predicate
        self.querySubscriptionOptions = querySubscriptionOptions
        super.init(subscriptionID: subscriptionID, subscriptionType: .query)
    }

    /// A subscription with a new unique name (deprecated in CloudKit: name your subscriptions).
    @available(macOS, deprecated: 10.12, message: "Use init(recordType:predicate:subscriptionID:options:) instead")
    @available(iOS, deprecated: 10.0, message: "Use init(recordType:predicate:subscriptionID:options:) instead")
    @available(tvOS, deprecated: 10.0, message: "Use init(recordType:predicate:subscriptionID:options:) instead")
    @available(watchOS, deprecated: 3.0, message: "Use init(recordType:predicate:subscriptionID:options:) instead")
    public convenience init(
        recordType: CKRecord.RecordType, predicate: NSPredicate,
        options querySubscriptionOptions: CKQuerySubscription.Options = [
            .firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion,
        ]
    ) {
        self.init(
            recordType: recordType, predicate: predicate, subscriptionID: UUID().uuidString,
            options: querySubscriptionOptions)
    }

    override func makeRow() throws(CKError) -> SubscriptionRow {
        guard let recordType else {
            throw CKError.make(.invalidArguments, "query subscription '\(subscriptionID)' has no record type")
        }
        if let problem = Validation.recordTypeProblem(recordType) {
            throw CKError.make(.invalidArguments, problem)
        }
        let fires: Options = [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion]
        if querySubscriptionOptions.intersection(fires).isEmpty {
            throw CKError.make(
                .invalidArguments,
                "query subscription '\(subscriptionID)' must fire on record creation, update or deletion (its options are empty)"
            )
        }
        return SubscriptionRow(
            subscriptionID: subscriptionID,
            kind: .query(
                recordType: recordType, predicate: try StoredPredicate(validating: predicate),
                zoneID: zoneID.map(SubscriptionRow.ZoneName.init), options: querySubscriptionOptions.rawValue),
            notificationInfo: notificationInfo?.row)
    }

    override func makeArchivedRow() -> SubscriptionRow {
        SubscriptionRow(
            subscriptionID: subscriptionID,
            kind: .query(
                recordType: recordType ?? "", predicate: StoredPredicate(archiving: predicate),
                zoneID: zoneID.map(SubscriptionRow.ZoneName.init), options: querySubscriptionOptions.rawValue),
            notificationInfo: notificationInfo?.row)
    }

    /// Re-creates a query subscription archived with `encode(with:)`.
    public required init?(coder: NSCoder) {
        guard let row = CKSubscription.decodeRow(coder, type: .query),
            case .query(let recordType, let predicate, let zoneID, let options) = row.kind
        else { return nil }
        self.recordType = recordType
        self.predicate = predicate.makePredicate()
        self.zoneID = zoneID?.zoneID
        self.querySubscriptionOptions = Options(rawValue: options)
        super.init(subscriptionID: row.subscriptionID, subscriptionType: .query)
        self.notificationInfo = row.notificationInfo.map(CKSubscription.NotificationInfo.init(row:))
    }

    /// A description for debugging: ID, record type, predicate and options.
    public override var description: String {
        "<CKQuerySubscription: subscriptionID=\(subscriptionID), recordType=\(recordType ?? "nil"), predicate=\(predicate.stratusPredicateFormat), options=\(querySubscriptionOptions.rawValue)>"
    }
}
