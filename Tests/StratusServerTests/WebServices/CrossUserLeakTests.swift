import Foundation
import Testing

/// The cross-user leak test (decision 0013): bob fills his private database (a zone of his
/// own, records with canary strings) and a public record; alice then calls every served
/// endpoint on her private database with bob's record names, zone names, owner name and sync
/// tokens, and asks for bob's subscriptions (whose filters and alerts carry canaries too) in the
/// private and the public database. No answer to alice may contain a canary.
@Suite("Web Services: no user sees another's private data", .serialized)
struct CrossUserLeakTests {
    /// What bob left behind: names and tokens alice will try.
    struct BobsTraces {
        var userRecordName: String
        var syncToken: String
        var databaseToken: String
    }

    static let canary = "CANARY-\(UUID().uuidString)"

    @Test func aliceNeverSeesBobsCanaries() async throws {
        let fixture = try WebServicesFixture()
        let bob = try await fill(fixture)
        var answers = 0
        let calls = requests(bob).map { ("private", $0.0, $0.1) } + subscriptionRequests
        for (database, operation, body) in calls {
            let path = "database/1/\(WebServicesFixture.container)/development/\(database)/\(operation)"
            let answer = try await fixture.raw("POST", path, body: Data(body.utf8), as: .alice)
            let text = String(decoding: answer.body, as: UTF8.self)
            #expect(
                !text.contains(Self.canary), "alice's \(database) \(operation) \(body) answered bob's canary: \(text)")
            #expect(answer.status != 500, "\(operation): \(text)")
            answers += 1
        }
        #expect(answers == calls.count)
        // Alice's delete of bob's subscription ID deleted nothing of bob's.
        for database in ["private", "public"] {
            let path = "database/1/\(WebServicesFixture.container)/development/\(database)/subscriptions/list"
            let bobs = try await fixture.raw("POST", path, body: nil, as: .bob)
            let text = String(decoding: bobs.body, as: UTF8.self)
            #expect(text.contains("bob-sub") && text.contains(Self.canary), "bob's \(database) subscription: \(text)")
        }
    }

    /// Bob's subscription, its filter value and alert the canary.
    static let bobsSubscription =
        #"{"operations": [{"operationType": "create", "subscription": {"subscriptionID": "bob-sub", "#
        + #""subscriptionType": "query", "query": {"recordType": "Secret", "filterBy": [{"comparator": "EQUALS", "#
        + #""fieldName": "note", "fieldValue": {"value": "\#(canary)"}}]}, "#
        + #""notificationInfo": {"alertBody": "\#(canary)"}}}]}"#

    /// Alice's subscription calls with bob's subscription ID, in both databases that keep them.
    var subscriptionRequests: [(String, String, String)] {
        ["private", "public"].flatMap { database in
            [
                (database, "subscriptions/list", "{}"),
                (database, "subscriptions/lookup", #"{"subscriptions": [{"subscriptionID": "bob-sub"}]}"#),
                (
                    database, "subscriptions/modify",
                    #"{"operations": [{"operationType": "delete", "subscription": {"subscriptionID": "bob-sub"}}]}"#
                ),
                (database, "subscriptions/list", "{}"),
            ]
        }
    }

    /// Bob's zone, records and tokens; fails when bob's own requests fail.
    private func fill(_ fixture: WebServicesFixture) async throws -> BobsTraces {
        let zone = #"{"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "BobZone"}}}]}"#
        #expect(try await fixture.post("zones/modify", try json(zone), database: "private", as: .bob).status == 200)
        let record = { (name: String) in
            #"{"operationType": "create", "record": {"recordName": "\#(name)", "recordType": "Secret", "#
                + #""fields": {"note": {"value": "\#(Self.canary)"}, "list": {"value": ["\#(Self.canary)"]}}}}"#
        }
        for zoneName in ["BobZone", "_defaultZone"] {
            let body = #"{"zoneID": {"zoneName": "\#(zoneName)"}, "operations": [\#(record("bob-secret"))]}"#
            let saved = try await fixture.post("records/modify", try json(body), database: "private", as: .bob)
            #expect(saved.status == 200 && saved.records.first?["serverErrorCode"] == nil, "\(saved.json)")
        }
        let publicBody = #"{"operations": [\#(record("bob-public"))]}"#
        let published = try await fixture.post("records/modify", try json(publicBody), database: "public", as: .bob)
        #expect(published.status == 200 && published.records.first?["serverErrorCode"] == nil, "\(published.json)")
        for database in ["private", "public"] {
            let saved = try await fixture.post(
                "subscriptions/modify", try json(Self.bobsSubscription), database: database, as: .bob)
            #expect(
                String(describing: saved.json).contains(Self.canary), "bob's \(database) subscription: \(saved.json)")
        }
        let changes = try await fixture.post(
            "records/changes", try json(#"{"zoneID": {"zoneName": "BobZone"}}"#), database: "private", as: .bob)
        let text = String(describing: changes.json)
        #expect(text.contains(Self.canary), "bob sees his own canary")
        let database = try await fixture.post("changes/database", [String: Any](), database: "private", as: .bob)
        let owner = ((changes.records.first?["created"] as? [String: Any])?["userRecordName"] as? String) ?? ""
        #expect(!owner.isEmpty, "\(changes.json)")
        return BobsTraces(
            userRecordName: owner, syncToken: changes.json["syncToken"] as? String ?? "",
            databaseToken: database.json["syncToken"] as? String ?? "")
    }

    /// Every served endpoint, with bob's names, owner and tokens.
    private func requests(_ bob: BobsTraces) -> [(String, String)] {
        let zones = [
            #"{"zoneName": "BobZone"}"#, #"{"zoneName": "BobZone", "ownerRecordName": "\#(bob.userRecordName)"}"#,
            #"{"zoneName": "_defaultZone", "ownerRecordName": "\#(bob.userRecordName)"}"#,
            #"{"zoneName": "_defaultZone"}"#,
        ]
        var list: [(String, String)] = []
        for zone in zones {
            list += [
                (
                    "records/lookup",
                    #"{"zoneID": \#(zone), "records": [{"recordName": "bob-secret"}, {"recordName": "bob-public"}]}"#
                ),
                ("records/changes", #"{"zoneID": \#(zone)}"#),
                ("records/changes", #"{"zoneID": \#(zone), "syncToken": "\#(bob.syncToken)"}"#),
                (
                    "changes/zone",
                    #"{"zones": [{"zoneID": \#(zone)}, {"zoneID": \#(zone), "syncToken": "\#(bob.syncToken)"}]}"#
                ),
                ("zones/lookup", #"{"zones": [{"zoneID": \#(zone)}]}"#),
                ("records/query", #"{"zoneID": \#(zone), "query": {"recordType": "Secret"}}"#),
                (
                    "records/query",
                    #"{"zoneID": \#(zone), "query": {"recordType": "Secret", "filterBy": [{"comparator": "BEGINS_WITH", "#
                        + #""fieldName": "note", "fieldValue": {"value": "CANARY"}}]}}"#
                ),
                (
                    "records/modify",
                    #"{"zoneID": \#(zone), "operations": [{"operationType": "forceDelete", "record": "#
                        + #"{"recordName": "bob-secret"}}]}"#
                ),
            ]
        }
        list += [
            ("changes/database", "{}"), ("changes/database", #"{"syncToken": "\#(bob.databaseToken)"}"#),
            ("zones/changes", #"{"metaSyncToken": "\#(bob.databaseToken)"}"#), ("zones/list", "{}"),
            ("records/query", #"{"zoneWide": true, "query": {"recordType": "Secret"}}"#),
            ("users/caller", "{}"),
        ]
        return list
    }

    private func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }
}
