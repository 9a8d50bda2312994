import Foundation
import Stratus
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

    @Test func aliceNeverReachesBobsLongLivedOperations() async throws {
        let fixture = try WebServicesFixture()
        let record = CKRecord(recordType: "Secret", recordID: CKRecord.ID(recordName: "bob-\(Self.canary)"))
        record["note"] = Self.canary
        let operation = CKModifyRecordsOperation(recordsToSave: [record], recordIDsToDelete: nil)
        for (id, database) in [("bob-op", "private"), ("bob-public-op", "public")] {
            let submitted = try await fixture.submit(operation, id: id, database: database, as: .bob)
            #expect(submitted.status == 200, "\(submitted.json)")
            let events = try await fixture.allEvents(id, as: .bob)
            #expect(events.contains { Self.holdsCanary($0.bytes) }, "bob's journal holds his canary")
        }
        // Every long-lived endpoint, as alice, with bob's operation IDs, in both databases.
        for database in ["private", "public"] {
            for id in ["bob-op", "bob-public-op"] {
                for (method, suffix, query) in [
                    ("GET", "/\(id)", ""), ("GET", "/\(id)/events", "from=0&timeout=0"), ("POST", "/\(id)/cancel", ""),
                    ("POST", "/\(id)/delivered", ""),
                ] {
                    let answer = try await longLived(fixture, method, database, suffix, query: query)
                    #expect(answer.status == 404, "alice's \(method) \(database) \(suffix): \(answer.status)")
                    #expect(!Self.leaks(answer.body), "alice's \(method) \(database) \(suffix) leaked the canary")
                }
            }
            let list = try await longLived(fixture, "GET", database, "")
            let text = String(decoding: list.body, as: UTF8.self)
            #expect(list.status == 200 && !text.contains("bob-"), "alice's \(database) list: \(text)")
        }
        // Alice's own operation under bob's ID is hers: it runs her request, not bob's.
        let hers = try await fixture.submit(CKFetchRecordZonesOperation.fetchAllRecordZonesOperation(), id: "bob-op")
        #expect(hers.status == 200, "\(hers.json)")
        let herEvents = try await fixture.allEvents("bob-op")
        #expect(!herEvents.isEmpty && !herEvents.contains { Self.holdsCanary($0.bytes) })
        // Bob's operations are as he left them: completed, listed, their callbacks intact; bob
        // reads his own request back (so the check above would see a leak of it).
        #expect(try await fixture.listedOperations(as: .bob) == ["bob-op", "bob-public-op"])
        let path = "database/1/\(WebServicesFixture.container)/development/private/stratus/operations/bob-op"
        let own = try await fixture.raw("GET", path, body: nil, as: .bob)
        #expect(own.status == 200 && Self.leaks(own.body), "bob's own lookup: \(own.status)")
        let bobs = try await fixture.allEvents("bob-op", as: .bob)
        #expect(
            try EventSummaries.lines(bobs, of: "CKModifyRecordsOperation") == ["saved bob-\(Self.canary)", "finished"])
    }

    /// `method` to `…/{database}/stratus/operations{suffix}` as alice.
    private func longLived(
        _ fixture: WebServicesFixture, _ method: String, _ database: String, _ suffix: String, query: String = ""
    ) async throws -> WebServicesFixture.RawAnswer {
        let path = "database/1/\(WebServicesFixture.container)/development/\(database)/stratus/operations"
        let url =
            fixture.server.baseURL.absoluteString + "/" + path + suffix
            + "?ckAPIToken=\(fixture.apiToken)&ckWebAuthToken=\(fixture.aliceSession)"
            + (query.isEmpty ? "" : "&" + query)
        return try await fixture.request(method, url: url, body: method == "POST" ? Data("{}".utf8) : nil)
    }

    /// Whether journaled callback bytes hold the canary.
    static func holdsCanary(_ bytes: [UInt8]) -> Bool { String(decoding: bytes, as: UTF8.self).contains(canary) }

    /// Whether an answer holds the canary, as text or in a base64-encoded callback.
    static func leaks(_ body: Data) -> Bool {
        let text = String(decoding: body, as: UTF8.self)
        if text.contains(canary) { return true }
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        if let request = object?["request"] as? String, let bytes = Data(base64Encoded: request),
            holdsCanary(Array(bytes))
        {
            return true
        }
        let events = object?["events"] as? [[String: Any]] ?? []
        return events.contains { event in
            Data(base64Encoded: event["event"] as? String ?? "").map { holdsCanary(Array($0)) } ?? false
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
