import Foundation
import Testing

/// `users/caller`, `users/current` and `subscriptions/list|lookup|modify` through a real
/// `stratusd`.
@Suite("stratusd: users and subscriptions")
struct SubscriptionsEndpointTests {
    private static let path = "database/1/\(WebServicesFixture.container)/development"

    @Test func usersCallerNamesTheCaller() async throws {
        let ws = try WebServicesFixture()
        let created = try await ws.post(
            "records/modify",
            ["operations": [["operationType": "create", "record": ["recordName": "x", "recordType": "T"]]]])
        let alice = try #require(
            (created.records.first?["created"] as? [String: Any])?["userRecordName"] as? String, "\(created.json)")
        let caller = try await ws.send("GET", "\(Self.path)/public/users/caller", body: nil, as: .alice)
        #expect(caller.status == 200 && caller.json["userRecordName"] as? String == alice, "\(caller.json)")
        let current = try await ws.post("users/current", [:] as [String: Any], as: .bob)
        let bob = current.json["userRecordName"] as? String
        #expect(current.status == 200 && bob != nil && bob != alice, "\(current.json)")
        let anonymous = try await ws.send("GET", "\(Self.path)/public/users/caller", body: nil, as: .anonymous)
        #expect(anonymous.status == 200 && anonymous.json["userRecordName"] as? String == "_anonymous")
        let none = try await ws.send("GET", "\(Self.path)/public/users/caller", body: nil, as: .none)
        #expect(none.status == 401, "\(none.json)")
    }

    private static var subscription: [String: Any] {
        [
            "subscriptionID": "new-fruit", "subscriptionType": "query",
            "query": [
                "recordType": "Fruit",
                "filterBy": [["comparator": "BEGINS_WITH", "fieldName": "name", "fieldValue": ["value": "ap"]]],
            ],
            "firesOn": ["create"], "notificationInfo": ["alertBody": "A new fruit", "shouldBadge": true],
        ]
    }

    private func modify(
        _ ws: WebServicesFixture, _ operations: [[String: Any]], database: String = "public",
        as who: WebServicesFixture.Credentials = .alice
    ) async throws -> WebServicesFixture.Answer {
        try await ws.post("subscriptions/modify", ["operations": operations], database: database, as: who)
    }

    private func list(_ ws: WebServicesFixture, database: String = "public", as who: WebServicesFixture.Credentials)
        async throws -> WebServicesFixture.Answer
    {
        try await ws.send("GET", "\(Self.path)/\(database)/subscriptions/list", body: nil, as: who)
    }

    private func subscriptions(_ answer: WebServicesFixture.Answer) -> [[String: Any]] {
        answer.json["subscriptions"] as? [[String: Any]] ?? []
    }

    @Test func aSubscriptionIsCreatedListedLookedUpUpdatedAndDeleted() async throws {
        let ws = try WebServicesFixture()
        let created = try await modify(ws, [["operationType": "create", "subscription": Self.subscription]])
        #expect(created.status == 200, "\(created.json)")
        let saved = try #require(subscriptions(created).first)
        #expect(saved["subscriptionID"] as? String == "new-fruit" && saved["serverErrorCode"] == nil, "\(saved)")
        #expect(saved["firesOn"] as? [String] == ["create"])
        #expect((saved["notificationInfo"] as? [String: Any])?["alertBody"] as? String == "A new fruit")
        let filter = try #require(((saved["query"] as? [String: Any])?["filterBy"] as? [[String: Any]])?.first)
        #expect(filter["comparator"] as? String == "BEGINS_WITH" && filter["fieldName"] as? String == "name")
        #expect((filter["fieldValue"] as? [String: Any])?["value"] as? String == "ap", "\(filter)")

        let listed = try await list(ws, as: .alice)
        #expect(subscriptions(listed).map { $0["subscriptionID"] as? String } == ["new-fruit"], "\(listed.json)")
        let lookup = try await ws.post(
            "subscriptions/lookup", ["subscriptions": [["subscriptionID": "missing"], ["subscriptionID": "new-fruit"]]])
        #expect(subscriptions(lookup).map { $0["serverErrorCode"] as? String } == ["NOT_FOUND", nil], "\(lookup.json)")

        var changed = Self.subscription
        changed["firesOn"] = ["create", "delete"]
        let updated = try await modify(ws, [["operationType": "update", "subscription": changed]])
        #expect(subscriptions(updated).first?["firesOn"] as? [String] == ["create", "delete"], "\(updated.json)")
        #expect(subscriptions(try await list(ws, as: .alice)).first?["firesOn"] as? [String] == ["create", "delete"])

        let deleted = try await modify(
            ws,
            [
                ["operationType": "delete", "subscription": ["subscriptionID": "gone"]],
                ["operationType": "delete", "subscription": ["subscriptionID": "new-fruit"]],
            ])
        let answers = subscriptions(deleted)
        #expect(answers.map { $0["serverErrorCode"] as? String } == ["NOT_FOUND", nil], "\(deleted.json)")
        #expect(answers.last?["deleted"] as? Bool == true)
        #expect(subscriptions(try await list(ws, as: .alice)).isEmpty)
    }

    @Test func subscriptionsAreTheirUsersOwn() async throws {
        let ws = try WebServicesFixture()
        _ = try await modify(ws, [["operationType": "create", "subscription": Self.subscription]])
        let database: [String: Any] = ["subscriptionID": "everything", "subscriptionType": "database"]
        let privateOne = try await modify(
            ws, [["operationType": "create", "subscription": database]], database: "private")
        #expect(subscriptions(privateOne).first?["serverErrorCode"] == nil, "\(privateOne.json)")
        #expect(subscriptions(privateOne).first?["subscriptionType"] as? String == "database")

        for scope in ["public", "private"] {
            let bobs = try await list(ws, database: scope, as: .bob)
            #expect(bobs.status == 200 && subscriptions(bobs).isEmpty, "\(scope): \(bobs.json)")
        }
        let lookup = try await ws.post(
            "subscriptions/lookup", ["subscriptions": [["subscriptionID": "new-fruit"]]], as: .bob)
        #expect(subscriptions(lookup).first?["serverErrorCode"] as? String == "NOT_FOUND", "\(lookup.json)")
        let bobDeletes = try await modify(
            ws, [["operationType": "delete", "subscription": ["subscriptionID": "new-fruit"]]], as: .bob)
        #expect(subscriptions(bobDeletes).first?["serverErrorCode"] as? String == "NOT_FOUND")
        #expect(subscriptions(try await list(ws, as: .alice)).count == 1, "Alice's is still there")

        let anonymousList = try await list(ws, as: .anonymous)
        #expect(anonymousList.status == 421, "\(anonymousList.json)")
        let anonymousSave = try await modify(
            ws, [["operationType": "create", "subscription": Self.subscription]], as: .anonymous)
        #expect(anonymousSave.status == 421, "\(anonymousSave.json)")
    }

    @Test func aMalformedSubscriptionIsRefusedNamingTheField() async throws {
        let ws = try WebServicesFixture()
        var badType = Self.subscription
        badType["subscriptionType"] = "sometimes"
        var noQuery = Self.subscription
        noQuery["query"] = nil
        var badFires = Self.subscription
        badFires["firesOn"] = ["explode"]
        var badFilter = Self.subscription
        badFilter["query"] = [
            "recordType": "Fruit",
            "filterBy": [["comparator": "SOUNDS_LIKE", "fieldName": "name", "fieldValue": ["value": "x"]]],
        ]
        var noID = Self.subscription
        noID["subscriptionID"] = nil
        let cases: [([String: Any], String)] = [
            (badType, "subscriptionType"), (noQuery, "query"), (badFires, "firesOn"), (badFilter, "SOUNDS_LIKE"),
            (noID, "subscriptionID"),
        ]
        for (subscription, field) in cases {
            let answer = try await modify(
                ws,
                [
                    [
                        "operationType": "create",
                        "subscription": [
                            "subscriptionID": "fine", "subscriptionType": "query",
                            "query": ["recordType": "Fruit"],
                        ],
                    ],
                    ["operationType": "create", "subscription": subscription],
                ])
            #expect(answer.status == 400, "\(field): \(answer.json)")
            let reason = answer.json["reason"] as? String ?? ""
            #expect(reason.contains("operations[1]") && reason.contains(field), "\(field): \(reason)")
        }
        #expect(subscriptions(try await list(ws, as: .alice)).isEmpty, "nothing was half-applied")

        // A filter of more values than a query may hold is refused for its size.
        var tooMany = Self.subscription
        tooMany["query"] = [
            "recordType": "Fruit",
            "filterBy": [
                [
                    "comparator": "IN", "fieldName": "name",
                    "fieldValue": ["value": (0..<251).map { "v\($0)" }, "type": "STRING_LIST"],
                ]
            ],
        ]
        let refused = try await modify(ws, [["operationType": "create", "subscription": tooMany]])
        #expect(refused.status == 400 && refused.json["stratusErrorCode"] as? String == "limitExceeded")
        #expect((refused.json["reason"] as? String)?.contains("limit of values: 250") == true, "\(refused.json)")
    }
}

/// Zone subscriptions, the engine's per-database rules, and filters read back.
@Suite("stratusd: subscription kinds")
struct SubscriptionKindsTests {
    private func modify(_ ws: WebServicesFixture, _ subscriptions: [[String: Any]], database: String)
        async throws -> [[String: Any]]
    {
        let operations = subscriptions.map { ["operationType": "create", "subscription": $0] }
        let answer = try await ws.post("subscriptions/modify", ["operations": operations], database: database)
        #expect(answer.status == 200, "\(answer.json)")
        return answer.json["subscriptions"] as? [[String: Any]] ?? []
    }

    @Test func theEngineDecidesWhichDatabaseTakesWhichKind() async throws {
        let ws = try WebServicesFixture()
        let zone = try await ws.post(
            "zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Inbox"]]]]],
            database: "private")
        #expect(zone.status == 200)
        let zoneSubscription: [String: Any] = [
            "subscriptionID": "inbox", "subscriptionType": "zone", "zoneID": ["zoneName": "Inbox"],
        ]
        let missingZone: [String: Any] = [
            "subscriptionID": "nowhere", "subscriptionType": "zone", "zoneID": ["zoneName": "Nowhere"],
        ]
        let databaseKind: [String: Any] = ["subscriptionID": "all", "subscriptionType": "database"]
        let inPrivate = try await modify(ws, [zoneSubscription, missingZone, databaseKind], database: "private")
        #expect(inPrivate.map { $0["serverErrorCode"] as? String } == [nil, "ZONE_NOT_FOUND", nil], "\(inPrivate)")
        #expect((inPrivate.first?["zoneID"] as? [String: Any])?["zoneName"] as? String == "Inbox")
        #expect(inPrivate.first?["subscriptionType"] as? String == "zone")
        let inPublic = try await modify(ws, [zoneSubscription, databaseKind], database: "public")
        #expect(inPublic.map { $0["serverErrorCode"] as? String } == ["BAD_REQUEST", "BAD_REQUEST"], "\(inPublic)")
        #expect(inPublic.map { $0["stratusErrorCode"] as? String } == ["badDatabase", "badDatabase"])
    }

    @Test func filtersAreReadBackAsTheSameQuery() async throws {
        let ws = try WebServicesFixture()
        let filters: [[String: Any]] = [
            ["comparator": "NOT_IN", "fieldName": "name", "fieldValue": ["value": ["a", "b"]]],
            [
                "comparator": "NEAR", "fieldName": "place", "distance": 2500,
                "fieldValue": ["value": ["latitude": 1.5, "longitude": 2.5], "type": "LOCATION"],
            ],
            ["comparator": "LIST_MEMBER_BEGINS_WITH", "fieldName": "tags", "fieldValue": ["value": "x"]],
            ["comparator": "GREATER_THAN", "systemFieldName": "modifiedTimestamp", "fieldValue": ["value": 1000]],
        ]
        let subscription: [String: Any] = [
            "subscriptionID": "q", "subscriptionType": "query", "zoneID": ["zoneName": "_defaultZone"],
            "query": ["recordType": "Thing", "filterBy": filters], "firesOnce": true,
        ]
        let saved = try #require(try await modify(ws, [subscription], database: "public").first)
        #expect(saved["firesOnce"] as? Bool == true && saved["zoneWide"] as? Bool == false, "\(saved)")
        #expect(saved["firesOn"] as? [String] == ["create", "update", "delete"])
        let back = try #require((saved["query"] as? [String: Any])?["filterBy"] as? [[String: Any]], "\(saved)")
        #expect(
            back.map { $0["comparator"] as? String } == ["NOT_IN", "NEAR", "LIST_MEMBER_BEGINS_WITH", "GREATER_THAN"])
        #expect((back[0]["fieldValue"] as? [String: Any])?["type"] as? String == "STRING_LIST")
        #expect((back[1]["distance"] as? NSNumber)?.doubleValue == 2500, "\(back[1])")
        #expect(back[3]["systemFieldName"] as? String == "modifiedTimestamp")
        #expect(((back[3]["fieldValue"] as? [String: Any])?["value"] as? NSNumber)?.int64Value == 1000)
    }
}
