import Foundation
import Testing

/// Requests written as Apple's CloudKit Web Services reference documents them (its record,
/// query, zone, subscription and token dictionaries; its *Composing Web Service Requests*
/// "Artist" record), sent as a CloudKit JS client sends them — `Content-Type: text/plain`, the
/// optional keys left out — and the answers read for the keys Apple documents.
@Suite("stratusd: Apple's documented request shapes")
struct AppleExampleTests {
    /// `body` to `operation` in `database`, as text/plain, as alice.
    private func send(
        _ ws: WebServicesFixture, _ operation: String, _ body: String, database: String = "public",
        method: String = "POST"
    ) async throws -> [String: Any] {
        let answer = try await ws.raw(
            method, "database/1/\(WebServicesFixture.container)/development/\(database)/\(operation)",
            body: method == "GET" ? nil : Data(body.utf8), as: .alice, headers: ["Content-Type": "text/plain"])
        #expect(answer.status == 200, "\(operation): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
        return answer.json
    }

    @Test func theArtistRecordIsCreatedLookedUpQueriedAndUpdated() async throws {
        let ws = try WebServicesFixture()
        let created = try await send(
            ws, "records/modify",
            #"{"operations":[{"operationType":"create","record":{"recordType":"Artist","fields":{"firstName":{"value":"Mei"},"lastName":{"value":"Chen"}},"recordName":"Mei Chen"}}]}"#
        )
        let record = try #require((created["records"] as? [[String: Any]])?.first)
        #expect(record["recordName"] as? String == "Mei Chen")
        #expect(record["recordType"] as? String == "Artist")
        let tag = try #require(record["recordChangeTag"] as? String)
        for key in ["created", "modified"] {
            let change = try #require(record[key] as? [String: Any], "\(key) in \(record)")
            #expect(
                change["timestamp"] is NSNumber && change["userRecordName"] is String && change["deviceID"] is String)
        }

        let looked = try await send(ws, "records/lookup", #"{"records":[{"recordName":"Mei Chen"}]}"#)
        let fields = (looked["records"] as? [[String: Any]])?.first?["fields"] as? [String: [String: Any]]
        #expect(fields?["firstName"]?["value"] as? String == "Mei")
        #expect(fields?["firstName"]?["type"] as? String == "STRING")

        let queried = try await send(
            ws, "records/query",
            #"{"zoneID":{"zoneName":"_defaultZone"},"query":{"recordType":"Artist","filterBy":[{"comparator":"EQUALS","fieldName":"lastName","fieldValue":{"value":"Chen"}}],"sortBy":[{"fieldName":"firstName"}]},"resultsLimit":10}"#
        )
        #expect((queried["records"] as? [[String: Any]])?.compactMap { $0["recordName"] as? String } == ["Mei Chen"])

        let updated = try await send(
            ws, "records/modify",
            #"{"operations":[{"operationType":"update","record":{"recordName":"Mei Chen","recordType":"Artist","recordChangeTag":"\#(tag)","fields":{"firstName":{"value":"May"}}}}]}"#
        )
        let after = (updated["records"] as? [[String: Any]])?.first
        #expect(
            (after?["fields"] as? [String: [String: Any]])?["firstName"]?["value"] as? String == "May", "\(updated)")
        #expect(after?["recordChangeTag"] as? String != tag)
    }

    @Test func aZoneItsChangesAndTheDatabasesChanges() async throws {
        let ws = try WebServicesFixture()
        let zones = try await send(
            ws, "zones/modify",
            #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Gallery"}}}]}"#,
            database: "private")
        let zone = (zones["zones"] as? [[String: Any]])?.first?["zoneID"] as? [String: Any]
        #expect(zone?["zoneName"] as? String == "Gallery")
        let listed = try await send(ws, "zones/list", "", database: "private", method: "GET")
        #expect((listed["zones"] as? [[String: Any]])?.count == 2)
        _ = try await send(
            ws, "records/modify",
            #"{"operations":[{"operationType":"forceUpdate","record":{"recordType":"Artwork","recordName":"Starry","fields":{"title":{"value":"Starry Night"},"year":{"value":1889},"location":{"value":{"latitude":37.33,"longitude":-122.03},"type":"LOCATION"}}}}],"zoneID":{"zoneName":"Gallery"}}"#,
            database: "private")
        let changes = try await send(ws, "records/changes", #"{"zoneID":{"zoneName":"Gallery"}}"#, database: "private")
        let artwork = try #require((changes["records"] as? [[String: Any]])?.first)
        let fields = artwork["fields"] as? [String: [String: Any]]
        #expect(fields?["year"]?["type"] as? String == "INT64")
        #expect((fields?["location"]?["value"] as? [String: Any])?["latitude"] as? Double == 37.33)
        #expect(changes["syncToken"] is String && changes["moreComing"] as? Bool == false)
        let database = try await send(ws, "changes/database", "{}", database: "private")
        #expect(database["syncToken"] is String)
    }

    @Test func aQuerySubscriptionACallerAndANotificationToken() async throws {
        let ws = try WebServicesFixture()
        let saved = try await send(
            ws, "subscriptions/modify",
            #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"new-artists","subscriptionType":"query","query":{"recordType":"Artist"},"firesOn":["create","update"],"notificationInfo":{"alertBody":"A new artist"}}}]}"#,
            database: "private")
        #expect((saved["subscriptions"] as? [[String: Any]])?.first?["subscriptionID"] as? String == "new-artists")
        let caller = try await send(ws, "users/caller", "", method: "GET")
        #expect((caller["userRecordName"] as? String)?.hasPrefix("_") == true)
        let token = try await ws.raw(
            "POST", "database/1/\(WebServicesFixture.container)/development/tokens/create",
            body: Data(#"{"apnsEnvironment":"development"}"#.utf8), as: .alice, headers: ["Content-Type": "text/plain"])
        #expect(token.status == 200, "\(String(decoding: token.body, as: UTF8.self))")
        #expect(token.json["apnsEnvironment"] as? String == "development")
        #expect((token.json["webcourierURL"] as? String)?.contains("/notifications/1/") == true)
        #expect((token.json["webcourierURL"] as? String)?.hasPrefix("http://") == true)
        let proxied = try await ws.raw(
            "POST", "database/1/\(WebServicesFixture.container)/development/tokens/create",
            body: Data(#"{"apnsEnvironment":"development"}"#.utf8), as: .alice,
            headers: ["X-Forwarded-Proto": "https"])
        #expect(
            (proxied.json["webcourierURL"] as? String)?.hasPrefix("https://") == true,
            "behind a TLS-terminating proxy the courier URL is https: \(proxied.json)")
    }
}
