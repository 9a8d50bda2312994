public import Foundation

extension CKSubscription {
    /// How a subscription's push notifications look.
    public typealias NotificationInfo = CKNotificationInfo
}

/// How a subscription's push notifications look (`CKSubscription.NotificationInfo` in Swift):
/// alert texts, sound, badge, the `content-available` flag, and the record fields to include.
/// A top-level class so that `NSKeyedArchiver` can archive it on Linux.
///
/// Stratus stores it with the subscription; notifications are not delivered yet.
public final class CKNotificationInfo: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    /// The alert's text.
    public var alertBody: String?
    /// The key of a localized alert text in the app's `Localizable.strings`.
    public var alertLocalizationKey: String?
    /// The record fields whose values fill the localized alert text's placeholders.
    public var alertLocalizationArgs: [CKRecord.FieldKey]?
    /// The alert's title.
    public var title: String?
    /// The key of a localized title.
    public var titleLocalizationKey: String?
    /// The record fields whose values fill the localized title's placeholders.
    public var titleLocalizationArgs: [CKRecord.FieldKey]?
    /// The alert's subtitle.
    public var subtitle: String?
    /// The key of a localized subtitle.
    public var subtitleLocalizationKey: String?
    /// The record fields whose values fill the localized subtitle's placeholders.
    public var subtitleLocalizationArgs: [CKRecord.FieldKey]?
    /// The key of a localized title for the alert's action button.
    public var alertActionLocalizationKey: String?
    /// The image shown when the app launches from the notification.
    public var alertLaunchImage: String?
    /// The sound file to play.
    public var soundName: String?
    /// The record fields to include in the notification's payload.
    public var desiredKeys: [CKRecord.FieldKey]?
    /// Whether the notification increments the app's badge (default `false`).
    public var shouldBadge = false
    /// Whether the notification carries the `content-available` flag, waking the app in the
    /// background (default `false`).
    public var shouldSendContentAvailable = false
    /// Whether the notification carries the `mutable-content` flag (default `false`).
    public var shouldSendMutableContent = false
    /// The notification's category, for its actions.
    public var category: String?
    /// The record field whose value becomes the notification's collapse identifier.
    public var collapseIDKey: String?

    /// Notification info with every property at its default.
    public override init() {
        super.init()
    }

    /// Notification info with the given properties.
    public convenience init(
        alertBody: String? = nil,
        alertLocalizationKey: String? = nil,
        alertLocalizationArgs: [CKRecord.FieldKey]? = nil,
        title: String? = nil,
        titleLocalizationKey: String? = nil,
        titleLocalizationArgs: [CKRecord.FieldKey]? = nil,
        subtitle: String? = nil,
        subtitleLocalizationKey: String? = nil,
        subtitleLocalizationArgs: [CKRecord.FieldKey]? = nil,
        alertActionLocalizationKey: String? = nil,
        alertLaunchImage: String? = nil,
        soundName: String? = nil,
        desiredKeys: [CKRecord.FieldKey]? = nil,
        shouldBadge: Bool = false,
        shouldSendContentAvailable: Bool = false,
        shouldSendMutableContent: Bool = false,
        category: String? = nil,
        collapseIDKey: String? = nil
    ) {
        self.init()
        self.alertBody = alertBody
        self.alertLocalizationKey = alertLocalizationKey
        self.alertLocalizationArgs = alertLocalizationArgs
        self.title = title
        self.titleLocalizationKey = titleLocalizationKey
        self.titleLocalizationArgs = titleLocalizationArgs
        self.subtitle = subtitle
        self.subtitleLocalizationKey = subtitleLocalizationKey
        self.subtitleLocalizationArgs = subtitleLocalizationArgs
        self.alertActionLocalizationKey = alertActionLocalizationKey
        self.alertLaunchImage = alertLaunchImage
        self.soundName = soundName
        self.desiredKeys = desiredKeys
        self.shouldBadge = shouldBadge
        self.shouldSendContentAvailable = shouldSendContentAvailable
        self.shouldSendMutableContent = shouldSendMutableContent
        self.category = category
        self.collapseIDKey = collapseIDKey
    }

    /// The info as the engine stores it.
    var row: SubscriptionRow.Info {
        SubscriptionRow.Info(
            alertBody: alertBody, alertLocalizationKey: alertLocalizationKey,
            alertLocalizationArgs: alertLocalizationArgs, title: title, titleLocalizationKey: titleLocalizationKey,
            titleLocalizationArgs: titleLocalizationArgs, subtitle: subtitle,
            subtitleLocalizationKey: subtitleLocalizationKey, subtitleLocalizationArgs: subtitleLocalizationArgs,
            alertActionLocalizationKey: alertActionLocalizationKey, alertLaunchImage: alertLaunchImage,
            soundName: soundName, desiredKeys: desiredKeys, shouldBadge: shouldBadge,
            shouldSendContentAvailable: shouldSendContentAvailable,
            shouldSendMutableContent: shouldSendMutableContent, category: category, collapseIDKey: collapseIDKey)
    }

    /// The info a stored row describes.
    convenience init(row: SubscriptionRow.Info) {
        self.init(
            alertBody: row.alertBody, alertLocalizationKey: row.alertLocalizationKey,
            alertLocalizationArgs: row.alertLocalizationArgs, title: row.title,
            titleLocalizationKey: row.titleLocalizationKey, titleLocalizationArgs: row.titleLocalizationArgs,
            subtitle: row.subtitle, subtitleLocalizationKey: row.subtitleLocalizationKey,
            subtitleLocalizationArgs: row.subtitleLocalizationArgs,
            alertActionLocalizationKey: row.alertActionLocalizationKey, alertLaunchImage: row.alertLaunchImage,
            soundName: row.soundName, desiredKeys: row.desiredKeys, shouldBadge: row.shouldBadge,
            shouldSendContentAvailable: row.shouldSendContentAvailable,
            shouldSendMutableContent: row.shouldSendMutableContent, category: row.category,
            collapseIDKey: row.collapseIDKey)
    }

    /// Whether `object` is notification info with the same properties.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKNotificationInfo else { return false }
        return row == other.row
    }

    /// A hash consistent with `isEqual(_:)`.
    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(alertBody)
        hasher.combine(title)
        hasher.combine(shouldSendContentAvailable)
        return hasher.finalize()
    }

    /// A copy of the notification info.
    public func copy(with zone: NSZone? = nil) -> Any {
        CKNotificationInfo(row: row)
    }

    /// Archiving is secure.
    public static var supportsSecureCoding: Bool { true }

    /// Archives the notification info.
    public func encode(with coder: NSCoder) {
        var w = ByteWriter()
        w.write(UInt8(1))
        row.write(to: &w)
        coder.encode(Data(w.bytes) as NSData, forKey: "NotificationInfo")
    }

    /// Re-creates notification info archived with `encode(with:)`.
    public convenience init?(coder: NSCoder) {
        guard let data = coder.decodeObject(of: NSData.self, forKey: "NotificationInfo") else { return nil }
        var r = ByteReader(Array(data as Data))
        guard (try? r.readByte()) == 1, let row = try? SubscriptionRow.Info(reading: &r) else { return nil }
        self.init(row: row)
    }
}
