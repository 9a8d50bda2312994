import Foundation
package import Stratus

/// Subscriptions out, as subscription dictionaries.
extension WSSubscriptionTranslator {
    /// `{subscriptionID, subscriptionType, query?, zoneID?, firesOn?, firesOnce?, zoneWide?,
    /// notificationInfo?}` of `subscription`. A query subscription's predicate is written back
    /// as `filterBy` (``WSFilterWriter``); one saved through the embedded API with a predicate
    /// filters cannot express (`OR`, …) is written without `filterBy`. This is also a
    /// subscriptions/modify operation's `subscription`.
    package func dictionary(for subscription: CKSubscription) -> JSONValue {
        var members: [String: JSONValue] = ["subscriptionID": .string(subscription.subscriptionID)]
        if let query = subscription as? CKQuerySubscription {
            members["subscriptionType"] = "query"
            var queryMembers: [String: JSONValue] = ["recordType": .string(query.recordType ?? "")]
            queryMembers["filterBy"] = (try? WSFilterWriter(translator: translator).filters(for: query.predicate))
                .map(JSONValue.array)
            members["query"] = .object(queryMembers)
            members["zoneID"] = query.zoneID.map { translator.dictionary(for: $0) }
            members["zoneWide"] = .bool(query.zoneID == nil)
            let options = query.querySubscriptionOptions
            var firesOn: [JSONValue] = []
            if options.contains(.firesOnRecordCreation) { firesOn.append("create") }
            if options.contains(.firesOnRecordUpdate) { firesOn.append("update") }
            if options.contains(.firesOnRecordDeletion) { firesOn.append("delete") }
            members["firesOn"] = .array(firesOn)
            members["firesOnce"] = .bool(options.contains(.firesOnce))
        } else if let zone = subscription as? CKRecordZoneSubscription {
            members["subscriptionType"] = "zone"
            members["zoneID"] = translator.dictionary(for: zone.zoneID)
        } else {
            members["subscriptionType"] = "database"
        }
        members["notificationInfo"] = subscription.notificationInfo.map(notificationDictionary(for:))
        return .object(members)
    }

    private func notificationDictionary(for info: CKSubscription.NotificationInfo) -> JSONValue {
        var members: [String: JSONValue] = [
            "shouldBadge": .bool(info.shouldBadge),
            "shouldSendContentAvailable": .bool(info.shouldSendContentAvailable),
            "shouldSendMutableContent": .bool(info.shouldSendMutableContent),
        ]
        let strings: [(String, String?)] = [
            ("alertBody", info.alertBody), ("alertLocalizationKey", info.alertLocalizationKey), ("title", info.title),
            ("titleLocalizationKey", info.titleLocalizationKey), ("subtitle", info.subtitle),
            ("subtitleLocalizationKey", info.subtitleLocalizationKey),
            ("alertActionLocalizationKey", info.alertActionLocalizationKey),
            ("alertLaunchImage", info.alertLaunchImage), ("soundName", info.soundName), ("category", info.category),
            ("collapseIDKey", info.collapseIDKey),
        ]
        for (key, value) in strings { members[key] = value.map(JSONValue.string) }
        let lists: [(String, [String]?)] = [
            ("alertLocalizationArgs", info.alertLocalizationArgs),
            ("titleLocalizationArgs", info.titleLocalizationArgs),
            ("subtitleLocalizationArgs", info.subtitleLocalizationArgs), ("desiredKeys", info.desiredKeys),
        ]
        for (key, value) in lists { members[key] = value.map { .array($0.map(JSONValue.string)) } }
        return .object(members)
    }
}
