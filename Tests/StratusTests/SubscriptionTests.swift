import Foundation
import Stratus
import StratusInMemory
import Testing

/// Subscriptions: saving, fetching and deleting them, where each type is allowed, archiving,
/// and the notification types.
@Suite struct SubscriptionTests {
    @Test func aQuerySubscriptionPersistsWithItsPredicateAndNotificationInfo() async throws {
        let store = InMemoryStore()
        let database = CKContainer(identifier: "iCloud.test", backend: InMemoryBackend(store: store))
            .publicCloudDatabase
        let owner = CKRecord.Reference(recordID: CKRecord.ID(recordName: "alice"), action: .none)
        let since = Date(timeIntervalSinceReferenceDate: 700_000_000.25)
        let predicate = NSPredicate(
            format: "owner == %@ AND modified > %@ AND rating >= %d", argumentArray: [owner, since, 3])
        let subscription = CKQuerySubscription(
            recordType: "Note", predicate: predicate, subscriptionID: "notes-by-alice",
            options: [.firesOnRecordCreation, .firesOnRecordUpdate])
        subscription.zoneID = CKRecordZone.ID.default
        let info = CKSubscription.NotificationInfo()
        info.alertBody = "A note changed"
        info.shouldSendContentAvailable = true
        info.desiredKeys = ["title", "rating"]
        info.titleLocalizationArgs = ["title"]
        subscription.notificationInfo = info

        let saved = try await database.save(subscription)
        #expect(saved.subscriptionID == "notes-by-alice")
        #expect(saved.subscriptionType == CKSubscription.SubscriptionType.query)

        // A second container over the same store reads it back from storage.
        let reopened = CKContainer(identifier: "iCloud.test", backend: InMemoryBackend(store: store))
            .publicCloudDatabase
        let fetched = try #require(try await reopened.subscription(for: "notes-by-alice") as? CKQuerySubscription)
        #expect(fetched.recordType == "Note")
        #expect(fetched.querySubscriptionOptions == [.firesOnRecordCreation, .firesOnRecordUpdate])
        #expect(fetched.zoneID == CKRecordZone.ID.default)
        #expect(fetched.predicate.stratusExpression == predicate.stratusExpression)
        #expect(fetched.predicate.stratusExpression != nil)
        #expect(fetched.notificationInfo?.alertBody == "A note changed")
        #expect(fetched.notificationInfo?.shouldSendContentAvailable == true)
        #expect(fetched.notificationInfo?.shouldBadge == false)
        #expect(fetched.notificationInfo?.desiredKeys == ["title", "rating"])
        #expect(fetched.notificationInfo?.titleLocalizationArgs == ["title"])
        #expect(fetched.notificationInfo == info)
    }

    @Test func valuePredicatesRoundTripAsValuePredicates() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        _ = try await database.save(
            CKQuerySubscription(recordType: "Note", predicate: NSPredicate(value: true), subscriptionID: "all"))
        let fetched = try #require(try await database.subscription(for: "all") as? CKQuerySubscription)
        #expect(fetched.predicate.stratusExpression == .true)
        #expect(
            fetched.querySubscriptionOptions == [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion])
    }

    /// A database holds at most 200 subscriptions, each at most 64 KiB stored: every commit
    /// evaluates them and every fired notification carries its notification info. Replacing
    /// one, or deleting one in the same request, leaves room.
    @Test func subscriptionsAreBoundedInNumberAndSize() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let limit = 200
        func subscription(_ n: Int) -> CKSubscription {
            CKQuerySubscription(
                recordType: "Note", predicate: NSPredicate(format: "n == %d", n), subscriptionID: "s\(n)",
                options: [.firesOnRecordCreation])
        }
        let (filled, _) = try await database.modifySubscriptions(saving: (0..<limit).map(subscription), deleting: [])
        #expect(filled.values.allSatisfy { (try? $0.get()) != nil })

        let (over, _) = try await database.modifySubscriptions(saving: [subscription(limit)], deleting: [])
        #expect {
            try over["s\(limit)"]?.get()
        } throws: { error in
            let error = error as? CKError
            return error?.code == .limitExceeded && error?.localizedDescription.contains("the limit is 200") == true
        }
        let (replaced, _) = try await database.modifySubscriptions(saving: [subscription(0)], deleting: [])
        #expect((try? replaced["s0"]?.get()) != nil, "replacing one is not a new one")
        let (swapped, gone) = try await database.modifySubscriptions(saving: [subscription(limit)], deleting: ["s1"])
        #expect((try? swapped["s\(limit)"]?.get()) != nil && (try? gone["s1"]?.get()) != nil)
        #expect(try await database.allSubscriptions().count == limit)

        let (_, _) = try await database.modifySubscriptions(saving: [], deleting: ["s2"])
        let large = CKDatabaseSubscription(subscriptionID: "large")
        let info = CKSubscription.NotificationInfo()
        info.alertBody = String(repeating: "a", count: 70_000)
        large.notificationInfo = info
        let (tooLarge, _) = try await database.modifySubscriptions(saving: [large], deleting: [])
        #expect {
            try tooLarge["large"]?.get()
        } throws: { error in
            let error = error as? CKError
            return error?.code == .limitExceeded && error?.localizedDescription.contains("the limit is 65536") == true
        }
    }

    @Test func subscriptionsCanBeListedReplacedAndDeleted() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let zoneID = try await OpsTestKit.makeZone("Inbox", in: database)
        let zoneSubscription = CKRecordZoneSubscription(zoneID: zoneID, subscriptionID: "b-zone")
        zoneSubscription.recordType = "Note"
        let databaseSubscription = CKDatabaseSubscription(subscriptionID: "a-database")
        let (saveResults, _) = try await database.modifySubscriptions(
            saving: [zoneSubscription, databaseSubscription], deleting: [])
        #expect(saveResults.count == 2)
        #expect(saveResults.values.allSatisfy { (try? $0.get()) != nil })

        let all = try await database.allSubscriptions()
        #expect(all.map(\.subscriptionID) == ["a-database", "b-zone"])
        let zone = try #require(all.last as? CKRecordZoneSubscription)
        #expect(zone.zoneID == zoneID)
        #expect(zone.recordType == "Note")
        #expect(zone.subscriptionType == .recordZone)
        #expect((all.first as? CKDatabaseSubscription)?.recordType == nil)

        // Saving under an existing ID replaces the subscription.
        let replacement = CKDatabaseSubscription(subscriptionID: "a-database")
        replacement.recordType = "Task"
        _ = try await database.save(replacement)
        #expect((try await database.subscription(for: "a-database") as? CKDatabaseSubscription)?.recordType == "Task")
        #expect(try await database.allSubscriptions().count == 2)

        #expect(try await database.deleteSubscription(withID: "b-zone") == "b-zone")
        let results = try await database.subscriptions(for: ["a-database", "b-zone"])
        #expect((try? results["a-database"]?.get()) != nil)
        #expect(OpsTestKit.code(results["b-zone"]) == .unknownItem)
        let error = await #expect(throws: CKError.self) { try await database.deleteSubscription(withID: "b-zone") }
        #expect(error?.code == .unknownItem)
    }

    @Test func completionHandlerSubscriptionConveniences() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let subscription = CKDatabaseSubscription(subscriptionID: "changes")

        let (saved, saveError) = await withCheckedContinuation { continuation in
            database.save(subscription) { saved, error in continuation.resume(returning: (saved, error)) }
        }
        #expect(saveError == nil)
        #expect(saved?.subscriptionID == "changes")

        let (fetched, fetchError) = await withCheckedContinuation { continuation in
            database.fetch(withSubscriptionID: "changes") { subscription, error in
                continuation.resume(returning: (subscription, error))
            }
        }
        #expect(fetchError == nil)
        #expect(fetched is CKDatabaseSubscription)

        let (all, allError) = await withCheckedContinuation { continuation in
            database.fetchAllSubscriptions { subscriptions, error in
                continuation.resume(returning: (subscriptions, error))
            }
        }
        #expect(allError == nil)
        #expect(all?.map(\.subscriptionID) == ["changes"])

        let byID = await withCheckedContinuation { continuation in
            database.fetch(withSubscriptionIDs: ["changes", "other"]) { continuation.resume(returning: $0) }
        }
        #expect((try? byID.get()["changes"]?.get()) != nil)
        #expect(OpsTestKit.code(try byID.get()["other"]) == .unknownItem)

        let (deletedID, deleteError) = await withCheckedContinuation { continuation in
            database.delete(withSubscriptionID: "changes") { id, error in continuation.resume(returning: (id, error)) }
        }
        #expect(deleteError == nil)
        #expect(deletedID == "changes")

        let (missing, missingError) = await withCheckedContinuation { continuation in
            database.fetch(withSubscriptionID: "changes") { subscription, error in
                continuation.resume(returning: (subscription, error))
            }
        }
        #expect(missing == nil)
        #expect(OpsTestKit.code(missingError) == .unknownItem)
    }

    @Test func eachSubscriptionTypeIsRefusedWhereCloudKitDoesNotSupportIt() async throws {
        let container = OpsTestKit.makeContainer()
        let privateDB = container.privateCloudDatabase
        let query = {
            CKQuerySubscription(recordType: "Note", predicate: NSPredicate(value: true), subscriptionID: "q")
        }

        // Query subscriptions: not in the shared database.
        try await expectSaveFails(query(), in: container.sharedCloudDatabase, with: .badDatabase)
        _ = try await container.publicCloudDatabase.save(query())
        _ = try await privateDB.save(query())

        // Zone subscriptions: only for change-fetching zones of the private database.
        try await expectSaveFails(
            CKRecordZoneSubscription(zoneID: .default, subscriptionID: "z"), in: container.publicCloudDatabase,
            with: .badDatabase)
        try await expectSaveFails(
            CKRecordZoneSubscription(
                zoneID: CKRecordZone.ID(zoneName: "Shared", ownerName: "bob"), subscriptionID: "z"),
            in: container.sharedCloudDatabase, with: .badDatabase)
        try await expectSaveFails(
            CKRecordZoneSubscription(zoneID: .default, subscriptionID: "z"), in: privateDB, with: .invalidArguments)
        try await expectSaveFails(
            CKRecordZoneSubscription(zoneID: CKRecordZone.ID(zoneName: "Missing"), subscriptionID: "z"), in: privateDB,
            with: .zoneNotFound)

        // Database subscriptions: not in the public database.
        try await expectSaveFails(
            CKDatabaseSubscription(subscriptionID: "d"), in: container.publicCloudDatabase, with: .badDatabase)
        _ = try await container.sharedCloudDatabase.save(CKDatabaseSubscription(subscriptionID: "d"))

        #expect(try await container.publicCloudDatabase.allSubscriptions().map(\.subscriptionID) == ["q"])
        #expect(try await container.sharedCloudDatabase.allSubscriptions().map(\.subscriptionID) == ["d"])
        #expect(try await privateDB.allSubscriptions().map(\.subscriptionID) == ["q"])
    }

    @Test func invalidQuerySubscriptionsAreRefusedWithInvalidArguments() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        try await expectSaveFails(
            CKQuerySubscription(
                recordType: "Note", predicate: NSPredicate(value: true), subscriptionID: "none", options: []),
            in: database, with: .invalidArguments)
        try await expectSaveFails(
            CKQuerySubscription(
                recordType: "Note", predicate: NSPredicate(format: "a == 1 OR b == 2"), subscriptionID: "or"),
            in: database, with: .invalidArguments)
        try await expectSaveFails(
            CKQuerySubscription(recordType: "Note", predicate: NSPredicate(format: "a == == 1"), subscriptionID: "bad"),
            in: database, with: .invalidArguments)
        try await expectSaveFails(
            CKQuerySubscription(recordType: "Note", predicate: NSPredicate { _, _ in true }, subscriptionID: "block"),
            in: database, with: .invalidArguments)
        #expect(try await database.allSubscriptions().isEmpty)
    }

    @Test func partialFailureGoesOnlyToTheDeprecatedSubscriptionBlocks() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        let good = CKDatabaseSubscription(subscriptionID: "good")
        let modify = CKModifySubscriptionsOperation(subscriptionsToSave: [good], subscriptionIDsToDelete: ["missing"])
        let perSave = OpsLog<(CKSubscription.ID, Result<CKSubscription, any Error>)>()
        let perDelete = OpsLog<(CKSubscription.ID, Result<Void, any Error>)>()
        let final = OpsLog<Result<Void, any Error>>()
        let completion = OpsLog<([CKSubscription]?, [CKSubscription.ID]?, (any Error)?)>()
        modify.perSubscriptionSaveBlock = { id, result in perSave.append((id, result)) }
        modify.perSubscriptionDeleteBlock = { id, result in perDelete.append((id, result)) }
        modify.modifySubscriptionsResultBlock = { final.append($0) }
        modify.modifySubscriptionsCompletionBlock = { saved, deleted, error in
            completion.append((saved, deleted, error))
        }
        await OpsTestKit.run(modify, on: database)

        #expect(perSave.all.map(\.0) == ["good"])
        #expect(OpsTestKit.code(perDelete.all.first?.1) == .unknownItem)
        #expect(final.all.count == 1 && OpsTestKit.code(final.all.first) == nil)
        let (saved, deleted, error) = try #require(completion.all.first)
        #expect(saved?.map(\.subscriptionID) == ["good"])
        #expect(deleted == [])
        #expect(OpsTestKit.code(error) == .partialFailure)
        let byItem = try #require((error as? CKError)?.userInfo[CKPartialErrorsByItemIDKey] as? [AnyHashable: CKError])
        #expect(byItem["missing"]?.code == .unknownItem)

        let fetch = CKFetchSubscriptionsOperation(subscriptionIDs: ["good", "unknown"])
        let fetchFinal = OpsLog<Result<Void, any Error>>()
        let fetchCompletion = OpsLog<([CKSubscription.ID: CKSubscription]?, (any Error)?)>()
        fetch.fetchSubscriptionsResultBlock = { fetchFinal.append($0) }
        fetch.fetchSubscriptionCompletionBlock = { subscriptions, error in
            fetchCompletion.append((subscriptions, error))
        }
        await OpsTestKit.run(fetch, on: database)
        #expect(OpsTestKit.code(fetchFinal.all.first) == nil)
        let (subscriptions, fetchError) = try #require(fetchCompletion.all.first)
        #expect(subscriptions?.keys.sorted() == ["good"])
        #expect(((fetchError as? CKError)?.partialErrorsByItemID?["unknown"] as? CKError)?.code == .unknownItem)
    }

    @Test func fetchAllSubscriptionsOperationAndCancellation() async throws {
        let database = OpsTestKit.makeContainer().privateCloudDatabase
        _ = try await database.save(CKDatabaseSubscription(subscriptionID: "one"))
        let all = CKFetchSubscriptionsOperation.fetchAllSubscriptionsOperation()
        #expect(all.subscriptionIDs == nil)
        let ids = OpsLog<CKSubscription.ID>()
        all.perSubscriptionResultBlock = { id, _ in ids.append(id) }
        await OpsTestKit.run(all, on: database)
        #expect(ids.all == ["one"])

        let cancelled = CKModifySubscriptionsOperation(subscriptionsToSave: [
            CKDatabaseSubscription(subscriptionID: "two")
        ])
        let final = OpsLog<Result<Void, any Error>>()
        let completion = OpsLog<(any Error)?>()
        cancelled.modifySubscriptionsResultBlock = { final.append($0) }
        cancelled.modifySubscriptionsCompletionBlock = { _, _, error in completion.append(error) }
        cancelled.cancel()
        await OpsTestKit.run(cancelled, on: database)
        #expect(OpsTestKit.code(final.all.first) == .operationCancelled)
        #expect(OpsTestKit.code(completion.all.first ?? nil) == .operationCancelled)
        #expect(try await database.allSubscriptions().map(\.subscriptionID) == ["one"])
    }

    @Test func subscriptionsArchiveWithNSSecureCoding() throws {
        let predicate = NSPredicate(format: "title BEGINSWITH %@", "Re:")
        let subscription = CKQuerySubscription(recordType: "Mail", predicate: predicate, subscriptionID: "replies")
        subscription.zoneID = CKRecordZone.ID(zoneName: "Mail")
        subscription.notificationInfo = CKSubscription.NotificationInfo(alertBody: "New reply", shouldBadge: true)
        let data = try NSKeyedArchiver.archivedData(withRootObject: subscription, requiringSecureCoding: true)
        let decoded = try #require(
            try NSKeyedUnarchiver.unarchivedObject(ofClass: CKQuerySubscription.self, from: data))
        #expect(decoded.subscriptionID == "replies")
        #expect(decoded.recordType == "Mail")
        #expect(decoded.zoneID == CKRecordZone.ID(zoneName: "Mail"))
        #expect(decoded.predicate.stratusExpression == predicate.stratusExpression)
        #expect(decoded.notificationInfo?.alertBody == "New reply")
        #expect(decoded.notificationInfo?.shouldBadge == true)

        let copy = try #require(subscription.copy() as? CKQuerySubscription)
        #expect(copy !== subscription)
        #expect(copy.subscriptionID == "replies" && copy.notificationInfo == subscription.notificationInfo)
    }

    @Test func notificationsAreParsedFromPushPayloads() throws {
        let zonePayload: [AnyHashable: Any] = [
            "aps": ["content-available": 1],
            "ck": [
                "cid": "iCloud.test", "nid": "n-1",
                "fet": ["sid": "zone-sub", "zid": "Inbox", "zoo": "__defaultOwner__", "dbs": 2],
            ],
        ]
        let zone = try #require(
            CKNotification(fromRemoteNotificationDictionary: zonePayload) as? CKRecordZoneNotification)
        #expect(zone.notificationType == .recordZone)
        #expect(zone.subscriptionID == "zone-sub")
        #expect(zone.recordZoneID == CKRecordZone.ID(zoneName: "Inbox"))
        #expect(zone.databaseScope == .private)
        #expect(zone.containerIdentifier == "iCloud.test")
        #expect(zone.notificationID != nil)

        let queryPayload: [AnyHashable: Any] = [
            "aps": ["alert": ["body": "Changed", "title": "Notes"], "badge": 3],
            "ck": [
                "qry": ["sid": "q", "rid": "note-1", "zid": "_defaultZone", "fo": 2, "dbs": 1, "af": ["title": "Hi"]]
            ],
        ]
        let query = try #require(CKQueryNotification(fromRemoteNotificationDictionary: queryPayload))
        #expect(query.queryNotificationReason == .recordUpdated)
        #expect(query.recordID == CKRecord.ID(recordName: "note-1"))
        #expect(query.databaseScope == .public)
        #expect(query.recordFields?["title"] as? String == "Hi")
        #expect(query.alertBody == "Changed" && query.title == "Notes")
        #expect(query.badge?.intValue == 3)

        let database = try #require(
            CKNotification(fromRemoteNotificationDictionary: ["ck": ["met": ["sid": "db", "dbs": 3]]])
                as? CKDatabaseNotification)
        #expect(database.subscriptionID == "db" && database.databaseScope == .shared)

        #expect(CKNotification(fromRemoteNotificationDictionary: ["aps": ["alert": "not CloudKit"]]) == nil)
        // Asking a subclass for another kind of notification gives nil.
        #expect(CKQueryNotification(fromRemoteNotificationDictionary: zonePayload) == nil)
    }

    /// Saving `subscription` in `database` fails with `code` and stores nothing under its ID.
    private func expectSaveFails(
        _ subscription: CKSubscription, in database: CKDatabase, with code: CKError.Code,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let error = await #expect(throws: CKError.self, sourceLocation: sourceLocation) {
            try await database.save(subscription)
        }
        #expect(error?.code == code, sourceLocation: sourceLocation)
        let stored = try await database.subscriptions(for: [subscription.subscriptionID])
        #expect(OpsTestKit.code(stored[subscription.subscriptionID]) == .unknownItem, sourceLocation: sourceLocation)
    }
}
