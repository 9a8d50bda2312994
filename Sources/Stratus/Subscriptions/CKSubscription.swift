public import Foundation

/// The abstract base class of subscriptions: persistent queries on the server that track the
/// creation, change and deletion of records.
///
/// Use a concrete subclass: `CKQuerySubscription`, `CKRecordZoneSubscription` or
/// `CKDatabaseSubscription`. Save it with `CKModifySubscriptionsOperation` or
/// `CKDatabase.save(_:)`.
///
/// Stratus stores subscriptions and returns them from fetches, but does not deliver push
/// notifications yet.
public class CKSubscription: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    /// A subscription's unique name within its database.
    public typealias ID = String

    /// What a subscription watches.
    public enum SubscriptionType: Int, Sendable {
        /// Records matching a predicate (`CKQuerySubscription`).
        case query = 1
        /// Every record of a zone (`CKRecordZoneSubscription`).
        case recordZone = 2
        /// Every zone of a database (`CKDatabaseSubscription`).
        case database = 3
    }

    /// The subscription's unique name within its database.
    public let subscriptionID: CKSubscription.ID
    /// What the subscription watches.
    public let subscriptionType: CKSubscription.SubscriptionType
    /// How the subscription's push notifications look; set it before saving the subscription.
    ///
    /// Setting it stores a copy, as Apple's `@NSCopying` property does (the attribute itself
    /// copies nothing on Linux): changing the info object afterwards leaves the subscription
    /// as it was.
    public var notificationInfo: CKSubscription.NotificationInfo? {
        get { storedNotificationInfo }
        set { storedNotificationInfo = newValue.flatMap { $0.copy() as? CKSubscription.NotificationInfo } }
    }
    private var storedNotificationInfo: CKSubscription.NotificationInfo?

    init(subscriptionID: CKSubscription.ID, subscriptionType: CKSubscription.SubscriptionType) {
        self.subscriptionID = subscriptionID
        self.subscriptionType = subscriptionType
    }

    /// The subscription as the engine stores it. Subclasses override it.
    ///
    /// - Throws: `invalidArguments` when the subscription cannot be saved as it is.
    func makeRow() throws(CKError) -> SubscriptionRow {
        throw CKError.make(.invalidArguments, "CKSubscription is abstract: use a concrete subscription")
    }

    /// The subscription as archived: the stored form, with a query subscription's predicate
    /// kept even when it is not a valid CloudKit predicate. Subclasses override it.
    func makeArchivedRow() -> SubscriptionRow {
        SubscriptionRow(
            subscriptionID: subscriptionID, kind: .database(recordType: nil), notificationInfo: notificationInfo?.row)
    }

    /// The subscription a stored row describes.
    static func make(from row: SubscriptionRow) -> CKSubscription {
        let subscription: CKSubscription
        switch row.kind {
        case .query(let recordType, let predicate, let zoneID, let options):
            let query = CKQuerySubscription(
                recordType: recordType, predicate: predicate.makePredicate(), subscriptionID: row.subscriptionID,
                options: CKQuerySubscription.Options(rawValue: options))
            query.zoneID = zoneID?.zoneID
            subscription = query
        case .recordZone(let zoneID, let recordType):
            let zone = CKRecordZoneSubscription(zoneID: zoneID.zoneID, subscriptionID: row.subscriptionID)
            zone.recordType = recordType
            subscription = zone
        case .database(let recordType):
            let database = CKDatabaseSubscription(subscriptionID: row.subscriptionID)
            database.recordType = recordType
            subscription = database
        }
        subscription.notificationInfo = row.notificationInfo.map(CKSubscription.NotificationInfo.init(row:))
        return subscription
    }

    // MARK: NSCopying

    /// A copy of the subscription (its notification info copied too).
    public func copy(with zone: NSZone? = nil) -> Any {
        CKSubscription.make(from: makeArchivedRow())
    }

    // MARK: NSSecureCoding

    /// Archiving is secure.
    public class var supportsSecureCoding: Bool { true }

    /// Archives the subscription.
    public func encode(with coder: NSCoder) {
        coder.encode(Data(makeArchivedRow().encoded()) as NSData, forKey: "Subscription")
    }

    /// The stored row an archive holds, if it holds a subscription of `type`.
    static func decodeRow(_ coder: NSCoder, type: SubscriptionType?) -> SubscriptionRow? {
        guard let data = coder.decodeObject(of: NSData.self, forKey: "Subscription"),
            let row = try? SubscriptionRow(decoding: Array(data as Data))
        else { return nil }
        if let type, Int(row.typeNumber) != type.rawValue { return nil }
        return row
    }

    /// Re-creates a subscription archived with `encode(with:)`.
    public required init?(coder: NSCoder) {
        guard let row = CKSubscription.decodeRow(coder, type: nil),
            let type = SubscriptionType(rawValue: Int(row.typeNumber))
        else { return nil }
        self.subscriptionID = row.subscriptionID
        self.subscriptionType = type
        self.storedNotificationInfo = row.notificationInfo.map(CKSubscription.NotificationInfo.init(row:))
    }

    /// A description for debugging: the subscription's class, ID and type.
    public override var description: String {
        "<\(type(of: self)): subscriptionID=\(subscriptionID), subscriptionType=\(subscriptionType)>"
    }
}
