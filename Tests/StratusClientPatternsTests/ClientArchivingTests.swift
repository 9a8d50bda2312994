import Foundation
import Stratus
import Testing

/// What apps keep between launches, archived with secure coding the way they archive it:
/// records (often only their system fields), assets in dictionaries of field values, IDs,
/// change tokens and query cursors.
@Suite("Client patterns: secure archiving")
struct ClientArchivingTests {
    private func roundTrip<T: NSObject & NSSecureCoding>(_ value: T) throws -> T {
        let data = try NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
        return try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: T.self, from: data))
    }

    @Test func aDictionaryOfFieldValuesHoldingAnAssetArchivesSecurely() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("asset-\(UUID()).txt")
        try Data("content".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let values: NSDictionary = [
            "title": "A note" as NSString, "count": NSNumber(value: 3),
            "attachment": CKAsset(fileURL: file),
        ]
        let data = try NSKeyedArchiver.archivedData(withRootObject: values, requiringSecureCoding: true)
        let decoded = try #require(
            try NSKeyedUnarchiver.unarchivedObject(
                ofClasses: [NSDictionary.self, NSString.self, NSNumber.self, CKAsset.self, NSURL.self], from: data)
                as? NSDictionary)
        #expect((decoded["attachment"] as? CKAsset)?.fileURL == file)
        #expect(decoded["title"] as? String == "A note")
        #expect(try roundTrip(CKAsset(fileURL: file)).fileURL == file)
    }

    @Test(arguments: ClientBackend.allCases)
    func recordsIDsTokensAndCursorsArchiveSecurely(_ backend: ClientBackend) async throws {
        try await backend.withContainer { container in
            let database = container.privateCloudDatabase
            let zoneID = CKRecordZone.ID(zoneName: "Archive", ownerName: CKCurrentUserDefaultName)
            _ = try await database.save(CKRecordZone(zoneID: zoneID))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("asset-\(UUID()).bin")
            try Data(repeating: 7, count: 64).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            for index in 1...3 {
                let record = CKRecord(
                    recordType: "Note", recordID: CKRecord.ID(recordName: "a\(index)", zoneID: zoneID))
                record["rank"] = NSNumber(value: index)
                record["file"] = CKAsset(fileURL: file)
                _ = try await database.save(record)
            }

            // A fetched record, its system fields, and its fetched asset.
            let fetched = try await database.record(for: CKRecord.ID(recordName: "a1", zoneID: zoneID))
            let copy = try roundTrip(fetched)
            #expect(copy.recordID == fetched.recordID)
            #expect(copy.recordChangeTag == fetched.recordChangeTag)
            let systemFields = NSKeyedArchiver(requiringSecureCoding: true)
            fetched.encodeSystemFields(with: systemFields)
            systemFields.finishEncoding()
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: systemFields.encodedData)
            unarchiver.requiresSecureCoding = true
            let restored = try #require(CKRecord(coder: unarchiver))
            #expect(restored.recordChangeTag == fetched.recordChangeTag)
            let asset = try #require(fetched["file"] as? CKAsset)
            let assetCopy = try roundTrip(asset)
            #expect(assetCopy.fileURL == asset.fileURL)

            // Saving the decoded record again keeps the stored asset content.
            copy["rank"] = NSNumber(value: 10)
            _ = try await database.save(copy)
            let again = try await database.record(for: fetched.recordID)
            let againFile = try #require((again["file"] as? CKAsset)?.fileURL)
            #expect(try Data(contentsOf: againFile) == Data(repeating: 7, count: 64))

            #expect(try roundTrip(fetched.recordID) == fetched.recordID)
            #expect(try roundTrip(zoneID) == zoneID)

            let changes = try await database.recordZoneChanges(inZoneWith: zoneID, since: nil)
            let token = try roundTrip(changes.changeToken)
            let none = try await database.recordZoneChanges(inZoneWith: zoneID, since: token)
            #expect(none.modificationResultsByID.isEmpty)

            let query = CKQuery(recordType: "Note", predicate: NSPredicate(value: true))
            query.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
            let page = try await database.records(matching: query, inZoneWith: zoneID, resultsLimit: 1)
            let cursor = try roundTrip(try #require(page.queryCursor))
            let next = try await database.records(continuingMatchFrom: cursor, resultsLimit: 1)
            // a1's rank is 10 now: the order is a2, a3, a1.
            #expect(page.matchResults.map(\.0.recordName) == ["a2"])
            #expect(next.matchResults.map(\.0.recordName) == ["a3"])
        }
    }
}

/// Copies, as apps make them before changing a query or keeping an ID.
@Suite("Client patterns: copies")
struct ClientCopyTests {
    @Test func copiesAreEqualAndIndependent() throws {
        let query = CKQuery(recordType: "Note", predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
        let copy = try #require(query.copy() as? CKQuery)
        copy.sortDescriptors = nil
        #expect(query.sortDescriptors?.count == 1)
        #expect(copy.recordType == "Note")

        let zoneID = CKRecordZone.ID(zoneName: "Notes", ownerName: CKCurrentUserDefaultName)
        #expect(zoneID.copy() as? CKRecordZone.ID == zoneID)
        let recordID = CKRecord.ID(recordName: "a", zoneID: zoneID)
        #expect(recordID.copy() as? CKRecord.ID == recordID)
        let reference = CKRecord.Reference(recordID: recordID, action: .deleteSelf)
        #expect((reference.copy() as? CKRecord.Reference)?.action == .deleteSelf)
        let zone = CKRecordZone(zoneID: zoneID)
        let zoneCopy = try #require(zone.copy() as? CKRecordZone)
        zoneCopy.encryptionScope = .perZone
        #expect(zone.encryptionScope == .perRecord)
        #expect(zoneCopy.zoneID == zoneID && zoneCopy.capabilities == zone.capabilities)
    }
}

extension ClientCopyTests {
    @Test func aSubscriptionKeepsACopyOfItsNotificationInfo() {
        let info = CKSubscription.NotificationInfo()
        info.alertBody = "before"
        let subscription = CKDatabaseSubscription(subscriptionID: "all")
        subscription.notificationInfo = info
        info.alertBody = "after"
        #expect(subscription.notificationInfo?.alertBody == "before")
    }
}

extension ClientCopyTests {
    @Test func aQueryOperationKeepsACopyOfItsQuery() {
        let query = CKQuery(recordType: "Note", predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: true)]
        let operation = CKQueryOperation(query: query)
        query.sortDescriptors = nil
        #expect(operation.query?.sortDescriptors?.count == 1)
        #expect(operation.query !== query)
    }
}
