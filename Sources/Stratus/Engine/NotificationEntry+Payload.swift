import Foundation

/// The APS dictionary of an entry (decision 0014.3), the shape
/// `CKNotification(fromRemoteNotificationDictionary:)` reads.
extension NotificationEntry {
    /// `{"aps": {…}, "ck": {"cid", "nid", "ckuserid", "qry"|"fet"|"met": {…}}}` for a log of
    /// `container` owned by `userRecordName`.
    package func payload(container: String, userRecordName: String) -> [String: NotificationPayloadValue] {
        var details: [String: NotificationPayloadValue] = [
            "sid": .string(subscriptionID), "dbs": .integer(Int64(databaseScope)),
        ]
        if let zoneName { details["zid"] = .string(zoneName) }
        if let zoneOwner { details["zoo"] = .string(zoneOwner) }
        let key: String
        switch kind {
        case .query:
            key = "qry"
            if let recordName { details["rid"] = .string(recordName) }
            details["fo"] = .integer(Int64(reason))
            if !recordFields.isEmpty { details["af"] = .object(recordFields) }
        case .recordZone: key = "fet"
        case .database: key = "met"
        }
        let ck: [String: NotificationPayloadValue] = [
            "cid": .string(container), "nid": .string(notificationID), "ckuserid": .string(userRecordName),
            key: .object(details),
        ]
        return ["aps": .object(aps), "ck": .object(ck)]
    }

    /// The `aps` dictionary: alert fields, badge, sound, category and the content flags.
    private var aps: [String: NotificationPayloadValue] {
        guard let info else { return [:] }
        var alert: [String: NotificationPayloadValue] = [:]
        func put(_ key: String, _ value: String?) {
            if let value { alert[key] = .string(NotificationEntry.truncated(value)) }
        }
        func put(_ key: String, _ values: [String]?) {
            if let values { alert[key] = .strings(values) }
        }
        put("body", info.alertBody)
        put("loc-key", info.alertLocalizationKey)
        put("loc-args", info.alertLocalizationArgs)
        put("title", info.title)
        put("title-loc-key", info.titleLocalizationKey)
        put("title-loc-args", info.titleLocalizationArgs)
        put("subtitle", info.subtitle)
        put("subtitle-loc-key", info.subtitleLocalizationKey)
        put("subtitle-loc-args", info.subtitleLocalizationArgs)
        put("action-loc-key", info.alertActionLocalizationKey)
        put("launch-image", info.alertLaunchImage)
        var aps: [String: NotificationPayloadValue] = [:]
        if !alert.isEmpty { aps["alert"] = .object(alert) }
        if info.shouldSendContentAvailable { aps["content-available"] = .integer(1) }
        if info.shouldSendMutableContent { aps["mutable-content"] = .integer(1) }
        if info.shouldBadge { aps["badge"] = .integer(1) }
        if let sound = info.soundName { aps["sound"] = .string(sound) }
        if let category = info.category { aps["category"] = .string(category) }
        return aps
    }
}
