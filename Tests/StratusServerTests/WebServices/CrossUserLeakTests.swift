import Foundation
import Testing

/// The cross-user leak test (decision 0013): bob fills his private database (a zone of his
/// own, records with canary strings) and a public record; alice then calls every served
/// endpoint on her private database with bob's record names, zone names, owner name and sync
/// tokens. No answer to alice may contain a canary.
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
        for (operation, body) in requests(bob) {
            let path = "database/1/\(WebServicesFixture.container)/development/private/\(operation)"
            let answer = try await fixture.raw("POST", path, body: Data(body.utf8), as: .alice)
            let text = String(decoding: answer.body, as: UTF8.self)
            #expect(!text.contains(Self.canary), "alice's \(operation) \(body) answered bob's canary: \(text)")
            #expect(answer.status != 500, "\(operation): \(text)")
            answers += 1
        }
        #expect(answers == requests(bob).count)
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
        ]
        return list
    }

    private func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }
}
