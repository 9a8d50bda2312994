import Foundation

/// Reading a push payload into a notification.
///
/// The payload is `{"aps": {…}, "ck": {…}}`. In `"ck"`: `"cid"` container identifier, `"nid"`
/// notification ID, `"ckuserid"` the subscription owner's user record name, and exactly one of
/// `"qry"` (query notification: `"sid"` subscription ID, `"rid"` record name, `"zid"` zone name,
/// `"zoo"` zone owner, `"fo"` reason 1/2/3, `"dbs"` database scope, `"af"` record fields),
/// `"fet"` (zone notification: `"sid"`, `"zid"`, `"zoo"`, `"dbs"`) or `"met"` (database
/// notification: `"sid"`, `"dbs"`). `"dbs"` uses `CKDatabase.Scope`'s raw values; when absent
/// the scope is `.private`. In `"aps"`: APNs' standard `"alert"` (a string or a dictionary of
/// `"body"`, `"loc-key"`, `"loc-args"`, `"title"`, …), `"badge"`, `"sound"`, `"category"`.
extension CKNotification {
    /// The notification `payload` describes, or `nil` if it is not a CloudKit notification.
    static func parse(_ payload: [AnyHashable: Any]) -> CKNotification? {
        guard let ck = dictionary(payload["ck"]) else { return nil }
        let notification: CKNotification
        let details: [String: Any]
        if let query = dictionary(ck["qry"]) {
            let result = CKQueryNotification()
            let zoneID = zoneID(in: query) ?? .default
            if let recordName = string(query["rid"]) {
                result.recordID = CKRecord.ID(recordName: recordName, zoneID: zoneID)
            }
            if let reason = integer(query["fo"]).flatMap(CKQueryNotification.Reason.init(rawValue:)) {
                result.queryNotificationReason = reason
            }
            if let fields = dictionary(query["af"]) { result.recordFields = fields }
            result.databaseScope = scope(in: query)
            notification = result
            details = query
        } else if let zone = dictionary(ck["fet"]) {
            let result = CKRecordZoneNotification()
            result.recordZoneID = zoneID(in: zone)
            result.databaseScope = scope(in: zone)
            notification = result
            details = zone
        } else if let database = dictionary(ck["met"]) {
            let result = CKDatabaseNotification()
            result.databaseScope = scope(in: database)
            notification = result
            details = database
        } else {
            return nil
        }
        notification.subscriptionID = string(details["sid"]) ?? string(ck["sid"])
        notification.containerIdentifier = string(ck["cid"])
        notification.notificationID = string(ck["nid"]).map(CKNotification.ID.init)
        notification.subscriptionOwnerUserRecordID = string(ck["ckuserid"]).map { CKRecord.ID(recordName: $0) }
        if let aps = dictionary(payload["aps"]) {
            notification.readAlert(aps)
        }
        return notification
    }

    private func readAlert(_ aps: [String: Any]) {
        if let text = CKNotification.string(aps["alert"]) {
            alertBody = text
        } else if let alert = CKNotification.dictionary(aps["alert"]) {
            alertBody = CKNotification.string(alert["body"])
            alertLocalizationKey = CKNotification.string(alert["loc-key"])
            alertLocalizationArgs = CKNotification.strings(alert["loc-args"])
            title = CKNotification.string(alert["title"])
            titleLocalizationKey = CKNotification.string(alert["title-loc-key"])
            titleLocalizationArgs = CKNotification.strings(alert["title-loc-args"])
            alertSubtitle = CKNotification.string(alert["subtitle"])
            subtitleLocalizationKey = CKNotification.string(alert["subtitle-loc-key"])
            subtitleLocalizationArgs = CKNotification.strings(alert["subtitle-loc-args"])
            alertActionLocalizationKey = CKNotification.string(alert["action-loc-key"])
            alertLaunchImage = CKNotification.string(alert["launch-image"])
        }
        badge = CKNotification.integer(aps["badge"]).map { NSNumber(value: $0) }
        soundName = CKNotification.string(aps["sound"])
        category = CKNotification.string(aps["category"])
    }

    // MARK: Reading payload values (Swift or Foundation types)

    private static func dictionary(_ value: Any?) -> [String: Any]? {
        if let dictionary = value as? [String: Any] { return dictionary }
        if let dictionary = value as? [AnyHashable: Any] {
            var result: [String: Any] = [:]
            for (key, element) in dictionary {
                guard let key = key.base as? String ?? (key.base as? NSString).map({ $0 as String }) else { continue }
                result[key] = element
            }
            return result
        }
        if let dictionary = value as? NSDictionary {
            var result: [String: Any] = [:]
            for (key, element) in dictionary {
                guard let key = string(key) else { continue }
                result[key] = element
            }
            return result
        }
        return nil
    }

    private static func string(_ value: Any?) -> String? {
        if let string = value as? String { return string }
        if let string = value as? NSString { return string as String }
        return nil
    }

    private static func strings(_ value: Any?) -> [String]? {
        if let strings = value as? [String] { return strings }
        if let array = value as? [Any] { return array.compactMap { string($0) } }
        if let array = value as? NSArray { return array.compactMap { string($0) } }
        return nil
    }

    private static func integer(_ value: Any?) -> Int? {
        if let int = value as? Int { return int }
        if let number = value as? NSNumber { return number.intValue }
        if let string = string(value) { return Int(string) }
        return nil
    }

    private static func zoneID(in details: [String: Any]) -> CKRecordZone.ID? {
        guard let zoneName = string(details["zid"]) else { return nil }
        return CKRecordZone.ID(zoneName: zoneName, ownerName: string(details["zoo"]) ?? CKCurrentUserDefaultName)
    }

    private static func scope(in details: [String: Any]) -> CKDatabase.Scope {
        integer(details["dbs"]).flatMap(CKDatabase.Scope.init(rawValue:)) ?? .private
    }
}
