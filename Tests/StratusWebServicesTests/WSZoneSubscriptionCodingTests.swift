import Foundation
import Stratus
import StratusWebServices
import Testing

/// Zones and subscriptions written by the server's side and read back by a client's.
@Suite("Web Services zones and subscriptions, both ways")
struct WSZoneSubscriptionCodingTests {
    let translator = WSRecordTranslator(callerRecordName: "_caller")

    @Test func zonesTheEngineReportsReadBackWithTheirIDAndCapabilities() throws {
        let fixture = try WSClientFixture()
        let custom = CKRecordZone.ID(zoneName: "Custom", ownerName: CKCurrentUserDefaultName)
        _ = try fixture.database.modifyZones(saving: [CKRecordZone(zoneID: custom)], deleting: [])
        let zones = try fixture.database.fetchZones([custom, .default]).map { try $0.1.get() }
        #expect(zones.count == 2)
        for zone in zones {
            let json = try WSClientFixture.wire(WSZoneCoding.dictionary(for: zone, translator: translator))
            #expect(json["zoneID"]?["ownerRecordName"] == "_caller")
            let read = try WSZoneCoding.zone(from: json, translator: translator)
            #expect(read.zoneID == zone.zoneID)
            #expect(read.capabilities == zone.capabilities, "\(zone.zoneID.zoneName)")
        }
        #expect(zones[0].capabilities.contains(.atomic))
    }

    @Test func aZoneToCreateIsReadByTheServersRequestShape() throws {
        let zone = CKRecordZone(zoneName: "New")
        let json = WSZoneCoding.dictionary(for: zone)
        #expect(json["zoneID"] == ["zoneName": "New", "ownerRecordName": "__defaultOwner__"])
        let id = try JSONValueDecoder().decode(WSZoneID.self, from: try #require(json["zoneID"]))
        #expect(WSRecordTranslator().zoneID(from: id) == zone.zoneID)
        #expect(throws: WSTranslationError.self) { try WSZoneCoding.zone(from: ["atomic": true]) }
    }

    /// Every notification setting, set.
    static func notificationInfo() -> CKSubscription.NotificationInfo {
        CKSubscription.NotificationInfo(
            alertBody: "body", alertLocalizationKey: "aKey", alertLocalizationArgs: ["a1"], title: "title",
            titleLocalizationKey: "tKey", titleLocalizationArgs: ["t1", "t2"], subtitle: "sub",
            subtitleLocalizationKey: "sKey", subtitleLocalizationArgs: [], alertActionLocalizationKey: "act",
            alertLaunchImage: "img", soundName: "ding", desiredKeys: ["name"], shouldBadge: true,
            shouldSendContentAvailable: true, shouldSendMutableContent: false, category: "cat",
            collapseIDKey: "collapse")
    }

    /// `subscription` out as the client sends it, in as the server reads it, out as the server
    /// answers, and in as the client reads the answer.
    func roundTrip(_ subscription: CKSubscription) throws -> (sent: JSONValue, read: CKSubscription) {
        let subscriptions = WSSubscriptionTranslator(translator: translator)
        let sent = try WSClientFixture.wire(subscriptions.dictionary(for: subscription))
        let onServer = try subscriptions.subscription(
            from: try JSONValueDecoder().decode(WSSubscriptionDictionary.self, from: sent))
        let answer = try WSClientFixture.wire(subscriptions.dictionary(for: onServer))
        #expect(answer == sent)
        return (sent, try subscriptions.subscription(from: answer))
    }

    @Test func aZoneSubscriptionRoundTrips() throws {
        let zone = CKRecordZone.ID(zoneName: "Z", ownerName: CKCurrentUserDefaultName)
        let subscription = CKRecordZoneSubscription(zoneID: zone, subscriptionID: "zone-sub")
        subscription.notificationInfo = Self.notificationInfo()
        let (_, read) = try roundTrip(subscription)
        let zoneSubscription = try #require(read as? CKRecordZoneSubscription)
        #expect(zoneSubscription.subscriptionID == "zone-sub")
        #expect(zoneSubscription.zoneID == zone)
        #expect(zoneSubscription.notificationInfo == Self.notificationInfo())
    }

    @Test func aDatabaseSubscriptionRoundTrips() throws {
        let subscription = CKDatabaseSubscription(subscriptionID: "db-sub")
        subscription.notificationInfo = CKSubscription.NotificationInfo(shouldSendContentAvailable: true)
        let (sent, read) = try roundTrip(subscription)
        #expect(sent["subscriptionType"] == "database")
        #expect(read is CKDatabaseSubscription)
        #expect(read.subscriptionID == "db-sub")
        #expect(read.notificationInfo?.shouldSendContentAvailable == true)
        let bare = try roundTrip(CKDatabaseSubscription(subscriptionID: "bare")).read
        #expect(bare.notificationInfo == nil)
    }

    @Test func aQuerySubscriptionRoundTripsWithItsPredicate() throws {
        let zone = CKRecordZone.ID(zoneName: "Z", ownerName: CKCurrentUserDefaultName)
        let predicate = NSPredicate(
            format: "count BETWEEN {1, 3} AND tags CONTAINS 'red' AND owner == %@",
            argumentArray: [CKRecord.ID(recordName: "u", zoneID: zone)])
        let subscription = CKQuerySubscription(
            recordType: "Item", predicate: predicate, subscriptionID: "q-sub",
            options: [.firesOnRecordCreation, .firesOnRecordDeletion, .firesOnce])
        subscription.zoneID = zone
        subscription.notificationInfo = Self.notificationInfo()
        let (_, read) = try roundTrip(subscription)
        let query = try #require(read as? CKQuerySubscription)
        #expect(query.recordType == "Item")
        #expect(query.zoneID == zone)
        #expect(query.querySubscriptionOptions == [.firesOnRecordCreation, .firesOnRecordDeletion, .firesOnce])
        #expect(query.notificationInfo == Self.notificationInfo())
        let expected = try QueryPredicate.parse(
            format: "count >= 1 AND count <= 3 AND tags CONTAINS 'red' AND owner == %@",
            arguments: [PredicateValue.reference(recordName: "u", zoneName: "Z", ownerName: CKCurrentUserDefaultName)])
        #expect(try query.predicate.stratusPredicate.get() == expected)
    }

    @Test func aZoneWideQuerySubscriptionHasNoZone() throws {
        let subscription = CKQuerySubscription(
            recordType: "Item", predicate: NSPredicate(value: true), subscriptionID: "wide",
            options: [.firesOnRecordUpdate])
        let (sent, read) = try roundTrip(subscription)
        #expect(sent["zoneWide"] == true)
        #expect((read as? CKQuerySubscription)?.zoneID == nil)
        #expect((read as? CKQuerySubscription)?.querySubscriptionOptions == [.firesOnRecordUpdate])
        #expect(throws: WSTranslationError.self) {
            try WSSubscriptionTranslator(translator: translator).subscription(from: ["subscriptionType": "zone"])
        }
    }
}
