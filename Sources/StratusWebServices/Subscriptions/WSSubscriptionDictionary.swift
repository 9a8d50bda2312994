/// A subscription dictionary as a client sends it (Apple's *Subscription Dictionary*).
package struct WSSubscriptionDictionary: Decodable, Sendable {
    /// Notification settings (Apple's *Notification Info Dictionary*).
    package struct NotificationInfo: Decodable, Sendable {
        /// `CKSubscription.NotificationInfo.alertBody`.
        package var alertBody: String?
        /// `CKSubscription.NotificationInfo.alertLocalizationKey`.
        package var alertLocalizationKey: String?
        /// `CKSubscription.NotificationInfo.alertLocalizationArgs`.
        package var alertLocalizationArgs: [String]?
        /// `CKSubscription.NotificationInfo.title`.
        package var title: String?
        /// `CKSubscription.NotificationInfo.titleLocalizationKey`.
        package var titleLocalizationKey: String?
        /// `CKSubscription.NotificationInfo.titleLocalizationArgs`.
        package var titleLocalizationArgs: [String]?
        /// `CKSubscription.NotificationInfo.subtitle`.
        package var subtitle: String?
        /// `CKSubscription.NotificationInfo.subtitleLocalizationKey`.
        package var subtitleLocalizationKey: String?
        /// `CKSubscription.NotificationInfo.subtitleLocalizationArgs`.
        package var subtitleLocalizationArgs: [String]?
        /// `CKSubscription.NotificationInfo.alertActionLocalizationKey`.
        package var alertActionLocalizationKey: String?
        /// `CKSubscription.NotificationInfo.alertLaunchImage`.
        package var alertLaunchImage: String?
        /// `CKSubscription.NotificationInfo.soundName`.
        package var soundName: String?
        /// `CKSubscription.NotificationInfo.desiredKeys`.
        package var desiredKeys: [String]?
        /// `CKSubscription.NotificationInfo.shouldBadge`.
        package var shouldBadge: Bool?
        /// `CKSubscription.NotificationInfo.shouldSendContentAvailable`.
        package var shouldSendContentAvailable: Bool?
        /// `CKSubscription.NotificationInfo.shouldSendMutableContent`.
        package var shouldSendMutableContent: Bool?
        /// `CKSubscription.NotificationInfo.category`.
        package var category: String?
        /// `CKSubscription.NotificationInfo.collapseIDKey`.
        package var collapseIDKey: String?
    }

    /// The subscription's ID (required).
    package var subscriptionID: String?
    /// `query`, `zone` or `database` (Stratus's name for `CKDatabaseSubscription`).
    package var subscriptionType: String?
    /// A query subscription's record type and filters.
    package var query: WSQueryDictionary?
    /// A zone subscription's zone, or the zone a query subscription watches.
    package var zoneID: WSZoneID?
    /// `create`, `update`, `delete`: when a query subscription fires; all three when absent.
    package var firesOn: [String]?
    /// Whether a query subscription is deleted after it first fires.
    package var firesOnce: Bool?
    /// How notifications are shown.
    package var notificationInfo: NotificationInfo?
    /// A query subscription over every zone (no `zoneID`).
    package var zoneWide: Bool?
}
