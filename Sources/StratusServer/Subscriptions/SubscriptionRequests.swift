internal import StratusWebServices

/// A subscription dictionary as a client sends it (Apple's *Subscription Dictionary*).
struct WSSubscriptionDictionary: Decodable, Sendable {
    /// Notification settings (Apple's *Notification Info Dictionary*).
    struct NotificationInfo: Decodable, Sendable {
        var alertBody: String?
        var alertLocalizationKey: String?
        var alertLocalizationArgs: [String]?
        var title: String?
        var titleLocalizationKey: String?
        var titleLocalizationArgs: [String]?
        var subtitle: String?
        var subtitleLocalizationKey: String?
        var subtitleLocalizationArgs: [String]?
        var alertActionLocalizationKey: String?
        var alertLaunchImage: String?
        var soundName: String?
        var desiredKeys: [String]?
        var shouldBadge: Bool?
        var shouldSendContentAvailable: Bool?
        var shouldSendMutableContent: Bool?
        var category: String?
        var collapseIDKey: String?
    }

    var subscriptionID: String?
    /// `query`, `zone` or `database` (Stratus's name for `CKDatabaseSubscription`).
    var subscriptionType: String?
    var query: WSQueryDictionary?
    var zoneID: WSZoneID?
    /// `create`, `update`, `delete`: when a query subscription fires; all three when absent.
    var firesOn: [String]?
    var firesOnce: Bool?
    var notificationInfo: NotificationInfo?
    /// A query subscription over every zone (no `zoneID`).
    var zoneWide: Bool?
}

/// The body of `subscriptions/modify`.
struct SubscriptionsModifyRequest: Decodable, Sendable {
    /// One operation: `create`, `update` or `delete`.
    struct Operation: Decodable, Sendable {
        var operationType: String
        var subscription: WSSubscriptionDictionary
    }

    var operations: [Operation]
}

/// The body of `subscriptions/lookup`.
struct SubscriptionsLookupRequest: Decodable, Sendable {
    /// `{subscriptionID}`.
    struct Item: Decodable, Sendable {
        var subscriptionID: String
    }

    var subscriptions: [Item]
}
