import Foundation
package import Stratus

/// Subscription dictionaries in, as the engine's `CKSubscription`s. The engine decides which
/// database takes which kind (``DatabaseContext/modifySubscriptions(saving:deleting:journal:)``).
package struct WSSubscriptionTranslator: Sendable {
    /// Reads and writes zone IDs and the filters' values.
    package var translator: WSRecordTranslator

    /// A subscription translator.
    package init(translator: WSRecordTranslator) {
        self.translator = translator
    }

    /// The subscription a dictionary describes.
    ///
    /// - Throws: ``WSTranslationError`` naming the key at fault (`subscriptionID`,
    ///   `subscriptionType`, `query`, `zoneID`, `firesOn`) or the filter.
    package func subscription(from dictionary: WSSubscriptionDictionary) throws(WSTranslationError) -> CKSubscription {
        guard let id = dictionary.subscriptionID, !id.isEmpty else {
            throw WSTranslationError(field: "subscriptionID", reason: "subscriptionID is required")
        }
        let subscription: CKSubscription
        switch dictionary.subscriptionType {
        case "query": subscription = try querySubscription(dictionary, id: id)
        case "zone":
            guard let zoneID = dictionary.zoneID else {
                throw WSTranslationError(field: "zoneID", reason: "a zone subscription needs zoneID")
            }
            subscription = CKRecordZoneSubscription(zoneID: translator.zoneID(from: zoneID), subscriptionID: id)
        case "database": subscription = CKDatabaseSubscription(subscriptionID: id)
        case let other:
            throw WSTranslationError(
                field: "subscriptionType",
                reason: "subscriptionType \(other.map { "'\($0)'" } ?? "(absent)") is not query, zone or database")
        }
        subscription.notificationInfo = dictionary.notificationInfo.map(notificationInfo)
        return subscription
    }

    private func querySubscription(_ dictionary: WSSubscriptionDictionary, id: String) throws(WSTranslationError)
        -> CKQuerySubscription
    {
        guard let query = dictionary.query else {
            throw WSTranslationError(field: "query", reason: "a query subscription needs query {recordType, filterBy}")
        }
        let zone = dictionary.zoneID.map(translator.zoneID(from:))
        let predicate: NSPredicate
        do throws(WSTranslationError) {
            predicate = try WSQueryTranslator(translator: translator, zone: zone ?? .default)
                .predicate(query.filterBy, path: "query")
        } catch {
            throw WSTranslationError(field: "query", reason: error.reason, exceedsALimit: error.exceedsALimit)
        }
        var options = CKQuerySubscription.Options()
        for event in dictionary.firesOn ?? ["create", "update", "delete"] {
            switch event {
            case "create": options.insert(.firesOnRecordCreation)
            case "update": options.insert(.firesOnRecordUpdate)
            case "delete": options.insert(.firesOnRecordDeletion)
            default:
                throw WSTranslationError(
                    field: "firesOn", reason: "firesOn '\(event)' is not one of create, update, delete")
            }
        }
        if dictionary.firesOnce == true { options.insert(.firesOnce) }
        let subscription = CKQuerySubscription(
            recordType: query.recordType, predicate: predicate, subscriptionID: id, options: options)
        subscription.zoneID = zone
        return subscription
    }

    private func notificationInfo(_ info: WSSubscriptionDictionary.NotificationInfo) -> CKSubscription.NotificationInfo
    {
        CKSubscription.NotificationInfo(
            alertBody: info.alertBody, alertLocalizationKey: info.alertLocalizationKey,
            alertLocalizationArgs: info.alertLocalizationArgs, title: info.title,
            titleLocalizationKey: info.titleLocalizationKey, titleLocalizationArgs: info.titleLocalizationArgs,
            subtitle: info.subtitle, subtitleLocalizationKey: info.subtitleLocalizationKey,
            subtitleLocalizationArgs: info.subtitleLocalizationArgs,
            alertActionLocalizationKey: info.alertActionLocalizationKey, alertLaunchImage: info.alertLaunchImage,
            soundName: info.soundName, desiredKeys: info.desiredKeys, shouldBadge: info.shouldBadge ?? false,
            shouldSendContentAvailable: info.shouldSendContentAvailable ?? false,
            shouldSendMutableContent: info.shouldSendMutableContent ?? false, category: info.category,
            collapseIDKey: info.collapseIDKey)
    }
}
