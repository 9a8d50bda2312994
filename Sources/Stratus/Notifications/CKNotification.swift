public import Foundation

/// A push notification a subscription generated: the base class of `CKQueryNotification`,
/// `CKRecordZoneNotification` and `CKDatabaseNotification`.
///
/// Create one from a push payload with `CKNotification(fromRemoteNotificationDictionary:)`,
/// which returns the subclass the payload describes.
///
/// An embedded container delivers none; a remote container (`StratusRemote`) delivers those
/// `stratusd` logs for its subscriptions as `CKContainer.notifications` (decision 0016.7), each
/// made from its payload by this initializer. The payload shape read is CloudKit's as seen in
/// delivered pushes (a `"ck"` dictionary with `"qry"`, `"fet"` or `"met"` for query, zone and
/// database notifications; UNCONFIRMED in detail), plus the standard `"aps"` alert keys; it is
/// the shape `stratusd` produces (decision 0014.3).
public class CKNotification: NSObject, @unchecked Sendable {
    /// What generated a notification.
    public enum NotificationType: Int, Sendable {
        /// A query subscription (`CKQueryNotification`).
        case query = 1
        /// A record zone subscription (`CKRecordZoneNotification`).
        case recordZone = 2
        /// A notification the app had marked as read.
        case readNotification = 3
        /// A database subscription (`CKDatabaseNotification`).
        case database = 4
    }

    /// What generated the notification.
    public internal(set) var notificationType: CKNotification.NotificationType
    /// The notification's unique identifier.
    public internal(set) var notificationID: CKNotification.ID?
    /// The identifier of the container the notification came from.
    public internal(set) var containerIdentifier: String?
    /// The user record ID of the subscription's owner.
    public internal(set) var subscriptionOwnerUserRecordID: CKRecord.ID?
    /// Whether the server dropped data to fit the push payload's size limit.
    public internal(set) var isPruned = false
    /// The ID of the subscription that generated the notification.
    public internal(set) var subscriptionID: CKSubscription.ID?

    /// The alert's text.
    public internal(set) var alertBody: String?
    /// The key of the alert's localized text.
    public internal(set) var alertLocalizationKey: String?
    /// The values that fill the localized alert text's placeholders.
    public internal(set) var alertLocalizationArgs: [String]?
    /// The alert's title.
    public internal(set) var title: String?
    /// The key of the alert's localized title.
    public internal(set) var titleLocalizationKey: String?
    /// The values that fill the localized title's placeholders.
    public internal(set) var titleLocalizationArgs: [String]?
    /// The alert's subtitle.
    @available(macOS, deprecated: 14.0, message: "No longer supported")
    @available(iOS, deprecated: 17.0, message: "No longer supported")
    @available(tvOS, deprecated: 17.0, message: "No longer supported")
    @available(watchOS, deprecated: 10.0, message: "No longer supported")
    public var subtitle: String? { alertSubtitle }
    /// The storage of `subtitle`, which Stratus sets without the deprecation.
    var alertSubtitle: String?
    /// The key of the alert's localized subtitle.
    public internal(set) var subtitleLocalizationKey: String?
    /// The values that fill the localized subtitle's placeholders.
    public internal(set) var subtitleLocalizationArgs: [String]?
    /// The key of the localized title of the alert's action button.
    public internal(set) var alertActionLocalizationKey: String?
    /// The image shown when the app launches from the notification.
    public internal(set) var alertLaunchImage: String?
    /// The badge number to show on the app's icon.
    public internal(set) var badge: NSNumber?
    /// The sound to play.
    public internal(set) var soundName: String?
    /// The notification's category.
    public internal(set) var category: String?

    init(notificationType: CKNotification.NotificationType) {
        self.notificationType = notificationType
    }

    /// A description for debugging: the notification's class, type and subscription ID.
    public override var description: String {
        "<\(type(of: self)): notificationType=\(notificationType), subscriptionID=\(subscriptionID ?? "nil")>"
    }
}

/// Lets `CKNotification(fromRemoteNotificationDictionary:)` return the subclass a payload
/// describes (an implementation detail; do not conform other types).
public protocol _CKNotificationFromRemoteDictionary {}

extension CKNotification: _CKNotificationFromRemoteDictionary {}

extension _CKNotificationFromRemoteDictionary {
    /// The notification a push payload describes: a `CKQueryNotification`,
    /// `CKRecordZoneNotification` or `CKDatabaseNotification` (test the result with `as?`).
    ///
    /// Returns `nil` when the payload is not a CloudKit notification, or (called on a
    /// subclass) when it describes another kind of notification.
    public init?(fromRemoteNotificationDictionary notificationDictionary: [AnyHashable: Any]) {
        guard let notification = CKNotification.parse(notificationDictionary) as? Self else { return nil }
        self = notification
    }
}
