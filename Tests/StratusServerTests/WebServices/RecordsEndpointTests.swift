import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `records/modify` and `records/lookup` through a real `stratusd` on loopback: every
/// operation type, per-item errors in request order, the public database's roles, private
/// databases kept apart, and bad input refused whole.
@Suite("stratusd: records/modify and records/lookup")
struct RecordsEndpointTests {
    static var note: [String: Any] {
        [
            "recordName": "note-1", "recordType": "Note",
            "fields": [
                "title": ["value": "Hello", "type": "STRING"], "count": ["value": 42, "type": "INT64"],
                "when": ["value": 1_700_000_000_123, "type": "TIMESTAMP"],
            ],
        ]
    }

    static func operation(_ type: String, _ record: [String: Any]) -> [String: Any] {
        ["operationType": type, "record": record]
    }

    @Test func aCreatedRecordIsReadBackByAnyoneWithItsFieldsAndCreator() async throws {
        let ws = try WebServicesFixture()
        let created = try await ws.post("records/modify", ["operations": [Self.operation("create", Self.note)]])
        #expect(created.status == 200, "\(created.json)")
        let saved = try #require(created.records.first)
        #expect(saved["recordName"] as? String == "note-1")
        let tag = try #require(saved["recordChangeTag"] as? String)
        #expect(!tag.isEmpty)
        let creator = (saved["created"] as? [String: Any])?["userRecordName"] as? String
        #expect(creator?.hasPrefix("_") == true && creator != "_anonymous", "the session's user: \(saved)")

        let read = try await ws.post("records/lookup", ["records": [["recordName": "note-1"]]], as: .anonymous)
        #expect(read.status == 200, "\(read.json)")
        let record = try #require(read.records.first)
        let fields = try #require(record["fields"] as? [String: [String: Any]])
        #expect(fields["title"]?["value"] as? String == "Hello")
        #expect(fields["title"]?["type"] as? String == "STRING")
        #expect((fields["count"]?["value"] as? NSNumber)?.int64Value == 42)
        #expect((fields["when"]?["value"] as? NSNumber)?.int64Value == 1_700_000_000_123)
        #expect(record["recordChangeTag"] as? String == tag)
        #expect((record["created"] as? [String: Any])?["userRecordName"] as? String == creator)

        let (metrics, _) = try await URLSession.shared.data(from: ws.server.metricsURL)
        let text = String(decoding: metrics, as: UTF8.self)
        #expect(text.contains("stratus_records_saved_total 1"), "\(text)")
        #expect(text.contains("stratus_records_fetched_total 1"), "\(text)")
    }

    @Test func everyOperationTypeDoesWhatItsNameSays() async throws {
        let ws = try WebServicesFixture()
        let first = try await ws.post("records/modify", ["operations": [Self.operation("create", Self.note)]])
        let tag1 = try #require(first.records.first?["recordChangeTag"] as? String)

        // update: the fields given change, the others stay.
        var update = ["recordName": "note-1", "recordType": "Note", "recordChangeTag": tag1] as [String: Any]
        update["fields"] = ["title": ["value": "Updated"]]
        let updated = try await ws.post("records/modify", ["operations": [Self.operation("update", update)]])
        let tag2 = try #require(updated.records.first?["recordChangeTag"] as? String, "\(updated.json)")
        let fields2 = updated.records.first?["fields"] as? [String: [String: Any]]
        #expect(fields2?["title"]?["value"] as? String == "Updated")
        #expect((fields2?["count"]?["value"] as? NSNumber)?.int64Value == 42, "update keeps the fields not given")

        // update with the old tag: a conflict carrying the server's record.
        update["recordChangeTag"] = tag1
        let stale = try await ws.post("records/modify", ["operations": [Self.operation("update", update)]])
        #expect(stale.status == 200)
        #expect(stale.records.first?["serverErrorCode"] as? String == "CONFLICT", "\(stale.json)")
        #expect((stale.records.first?["serverRecord"] as? [String: Any])?["recordChangeTag"] as? String == tag2)

        // create of an existing record: EXISTS.
        let again = try await ws.post("records/modify", ["operations": [Self.operation("create", Self.note)]])
        #expect(again.records.first?["serverErrorCode"] as? String == "EXISTS", "\(again.json)")

        // replace: the fields not given are gone.
        let replace: [String: Any] = [
            "recordName": "note-1", "recordType": "Note", "recordChangeTag": tag2,
            "fields": ["title": ["value": "Replaced"]],
        ]
        let replaced = try await ws.post("records/modify", ["operations": [Self.operation("replace", replace)]])
        let fields3 = try #require(replaced.records.first?["fields"] as? [String: Any], "\(replaced.json)")
        #expect(fields3.keys.sorted() == ["title"])

        // forceUpdate ignores the tag; forceReplace creates when absent.
        let force: [String: Any] = [
            "recordName": "note-1", "recordType": "Note", "recordChangeTag": "bogus",
            "fields": ["count": ["value": 7]],
        ]
        let forced = try await ws.post("records/modify", ["operations": [Self.operation("forceUpdate", force)]])
        let tag4 = try #require(forced.records.first?["recordChangeTag"] as? String, "\(forced.json)")
        let fresh: [String: Any] = ["recordName": "note-2", "recordType": "Note", "fields": ["title": ["value": "x"]]]
        let upserted = try await ws.post("records/modify", ["operations": [Self.operation("forceReplace", fresh)]])
        #expect(upserted.records.first?["recordName"] as? String == "note-2", "\(upserted.json)")

        // delete needs the current tag; forceDelete does not.
        let staleDelete = try await ws.post(
            "records/modify",
            ["operations": [Self.operation("delete", ["recordName": "note-1", "recordChangeTag": tag1])]])
        #expect(staleDelete.records.first?["serverErrorCode"] as? String == "CONFLICT", "\(staleDelete.json)")
        let deleted = try await ws.post(
            "records/modify",
            [
                "operations": [
                    Self.operation("delete", ["recordName": "note-1", "recordChangeTag": tag4]),
                    Self.operation("forceDelete", ["recordName": "note-2"]),
                ]
            ])
        #expect(deleted.records.map { $0["deleted"] as? Bool } == [true, true], "\(deleted.json)")
        let gone = try await ws.post(
            "records/lookup", ["records": [["recordName": "note-1"], ["recordName": "note-2"]]], as: .anonymous)
        #expect(gone.records.map { $0["serverErrorCode"] as? String } == ["NOT_FOUND", "NOT_FOUND"])
    }

    @Test func perItemErrorsSitInRequestOrder() async throws {
        let ws = try WebServicesFixture()
        _ = try await ws.post("records/modify", ["operations": [Self.operation("create", Self.note)]])
        let mixed = try await ws.post(
            "records/modify",
            [
                "operations": [
                    Self.operation("forceDelete", ["recordName": "missing"]),
                    Self.operation("create", ["recordName": "a", "recordType": "Note"]),
                    Self.operation("create", Self.note),
                    Self.operation("create", ["recordName": "b", "recordType": "Note"]),
                ]
            ])
        #expect(mixed.status == 200, "\(mixed.json)")
        #expect(
            mixed.records.map { $0["serverErrorCode"] as? String ?? $0["recordName"] as? String }
                == ["NOT_FOUND", "a", "EXISTS", "b"])
        #expect(mixed.records[0]["recordName"] as? String == "missing")
        #expect((mixed.records[2]["reason"] as? String)?.contains("note-1") == true)
        let looked = try await ws.post(
            "records/lookup",
            ["records": [["recordName": "b"], ["recordName": "nope"], ["recordName": "a"]]], as: .anonymous)
        #expect(
            looked.records.map { $0["serverErrorCode"] as? String ?? $0["recordName"] as? String }
                == ["b", "NOT_FOUND", "a"])
        let twice = try await ws.post(
            "records/lookup",
            ["records": [["recordName": "b"], ["recordName": "nope"], ["recordName": "b"]]], as: .anonymous)
        #expect(twice.status == 400, "\(twice.json)")
        #expect(twice.json["serverErrorCode"] as? String == "BAD_REQUEST")
        #expect(
            (twice.json["reason"] as? String)?.contains("records[2] names record 'b' again") == true,
            "a name asked twice is refused: \(twice.json)")
    }

    @Test func inThePublicDatabaseOnlyTheCreatorChangesARecord() async throws {
        let ws = try WebServicesFixture()
        let made = try await ws.post("records/modify", ["operations": [Self.operation("create", Self.note)]])
        let tag = try #require(made.records.first?["recordChangeTag"] as? String)
        let change: [String: Any] = [
            "recordName": "note-1", "recordType": "Note", "recordChangeTag": tag, "fields": ["title": ["value": "Bob"]],
        ]
        let bobUpdates = try await ws.post(
            "records/modify", ["operations": [Self.operation("update", change)]], as: .bob)
        #expect(bobUpdates.records.first?["serverErrorCode"] as? String == "ACCESS_DENIED", "\(bobUpdates.json)")
        let bobDeletes = try await ws.post(
            "records/modify", ["operations": [Self.operation("forceDelete", ["recordName": "note-1"])]], as: .bob)
        #expect(bobDeletes.records.first?["serverErrorCode"] as? String == "ACCESS_DENIED", "\(bobDeletes.json)")
        let read = try await ws.post("records/lookup", ["records": [["recordName": "note-1"]]], as: .bob)
        let fields = read.records.first?["fields"] as? [String: [String: Any]]
        #expect(fields?["title"]?["value"] as? String == "Hello", "Bob changed nothing")
        let byAlice = try await ws.post("records/modify", ["operations": [Self.operation("update", change)]])
        #expect(byAlice.records.first?["serverErrorCode"] == nil, "\(byAlice.json)")
    }

    @Test func privateDatabasesAreTheirUsersOwn() async throws {
        let ws = try WebServicesFixture()
        let saved = try await ws.post(
            "records/modify", ["operations": [Self.operation("create", Self.note)]], database: "private")
        #expect(saved.status == 200 && saved.records.first?["serverErrorCode"] == nil, "\(saved.json)")
        let byAlice = try await ws.post(
            "records/lookup", ["records": [["recordName": "note-1"]]], database: "private")
        #expect(byAlice.records.first?["recordName"] as? String == "note-1", "\(byAlice.json)")
        let byBob = try await ws.post(
            "records/lookup", ["records": [["recordName": "note-1"]]], database: "private", as: .bob)
        #expect(byBob.records.first?["serverErrorCode"] as? String == "NOT_FOUND", "\(byBob.json)")
        let inPublic = try await ws.post("records/lookup", ["records": [["recordName": "note-1"]]])
        #expect(inPublic.records.first?["serverErrorCode"] as? String == "NOT_FOUND")
        let anonymous = try await ws.post(
            "records/lookup", ["records": [["recordName": "note-1"]]], database: "private", as: .anonymous)
        #expect(anonymous.status == 421)
        #expect(anonymous.json["serverErrorCode"] as? String == "AUTHENTICATION_REQUIRED")
    }

    @Test func clientChangeTokenDataIsStoredWithTheZoneAndEchoedByItsChanges() async throws {
        let ws = try WebServicesFixture()
        let zone = ["zoneName": "Tokens"]
        _ = try await ws.post(
            "zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": zone]]]], database: "private"
        )
        let before = try await ws.post("records/changes", ["zoneID": zone], database: "private")
        #expect(before.status == 200 && before.json["clientChangeTokenData"] == nil, "\(before.json)")
        let token = Data("device-7".utf8).base64EncodedString()
        let saved = try await ws.post(
            "records/modify",
            ["operations": [Self.operation("create", Self.note)], "zoneID": zone, "clientChangeTokenData": token],
            database: "private")
        #expect(saved.status == 200 && saved.records.first?["serverErrorCode"] == nil, "\(saved.json)")
        let after = try await ws.post("records/changes", ["zoneID": zone], database: "private")
        #expect(after.json["clientChangeTokenData"] as? String == token, "\(after.json)")
        let several = try await ws.post("changes/zone", ["zones": [["zoneID": zone]]], database: "private")
        let first = (several.json["zones"] as? [[String: Any]])?.first
        #expect(first?["clientChangeTokenData"] as? String == token, "\(several.json)")

        let bad = try await ws.post(
            "records/modify",
            ["operations": [Self.operation("forceUpdate", Self.note)], "zoneID": zone, "clientChangeTokenData": "%%%"],
            database: "private")
        #expect(bad.status == 400, "\(bad.json)")
        #expect((bad.json["reason"] as? String)?.contains("clientChangeTokenData") == true)
        let unchanged = try await ws.post(
            "records/lookup", ["records": [["recordName": "note-1"]], "zoneID": zone], database: "private")
        #expect(
            unchanged.records.first?["recordChangeTag"] as? String == saved.records.first?["recordChangeTag"] as? String
        )
    }

    @Test func aNumberTypeIsKeptAndAnUnknownOneIsRefusedNamingTheFieldWithNothingStored() async throws {
        let ws = try WebServicesFixture()
        let typed: [String: Any] = [
            "recordName": "typed", "recordType": "Note",
            "fields": ["done": ["value": 1, "type": "INT64", "stratusNumberType": "Bool"]],
        ]
        let saved = try await ws.post("records/modify", ["operations": [Self.operation("create", typed)]])
        #expect(saved.status == 200 && saved.records.first?["serverErrorCode"] == nil, "\(saved.json)")
        let read = try await ws.post("records/lookup", ["records": [["recordName": "typed"]]])
        let done = (read.records.first?["fields"] as? [String: Any])?["done"] as? [String: Any]
        #expect(done?["stratusNumberType"] as? String == "Bool", "\(read.json)")

        var wrong = typed
        wrong["recordChangeTag"] = saved.records.first?["recordChangeTag"]
        wrong["fields"] = ["done": ["value": 0, "type": "INT64", "stratusNumberType": "Int128"]]
        let refused = try await ws.post("records/modify", ["operations": [Self.operation("update", wrong)]])
        #expect(refused.status == 400, "\(refused.json)")
        #expect(refused.json["serverErrorCode"] as? String == "BAD_REQUEST")
        #expect(refused.json["stratusErrorCode"] as? String == "invalidArguments")
        #expect(
            (refused.json["reason"] as? String)?.contains("Field 'done' (INT64): unknown stratusNumberType 'Int128'")
                == true, "\(refused.json)")
        let again = try await ws.post("records/lookup", ["records": [["recordName": "typed"]]])
        #expect(
            again.records.first?["recordChangeTag"] as? String == saved.records.first?["recordChangeTag"] as? String,
            "nothing stored")
    }

    /// A record of 40,000 fields in JSON is saved and looked up with 1,000 desired keys:
    /// setting each field once scanned the changed keys, and writing each desired key once
    /// scanned the fields, both growing with the square of the fields (in a debug build this
    /// test takes 3.5 s; with those costs, half as many fields took 24 s).
    @Test func aRecordOfManyFieldsIsSavedAndLookedUpByDesiredKeys() async throws {
        let ws = try WebServicesFixture()
        let count = 40_000
        var fields: [String: Any] = [:]
        for n in 0..<count { fields["f\(n)"] = ["value": n, "type": "INT64"] }
        let saved = try await ws.post(
            "records/modify",
            ["operations": [Self.operation("create", ["recordName": "wide", "recordType": "Wide", "fields": fields])]])
        #expect(saved.status == 200)
        let echo = try #require(saved.records.first)
        #expect((echo["fields"] as? [String: Any])?.count == count, "\(echo["serverErrorCode"] ?? "")")
        let wanted = (0..<1_000).map { "f\(count - 1 - $0 * 2)" }
        let looked = try await ws.post(
            "records/lookup", ["records": [["recordName": "wide"]], "desiredKeys": wanted], as: .anonymous)
        #expect(looked.status == 200)
        let some = try #require(looked.records.first?["fields"] as? [String: Any])
        #expect(some.count == wanted.count)
        #expect((some["f39999"] as? [String: Any])?["value"] as? Int == 39_999 && some["f0"] == nil)
        // More desired keys than a request may list (1,000) are refused, not looked up in
        // every record answered.
        let tooMany = try await ws.post(
            "records/lookup", ["records": [["recordName": "wide"]], "desiredKeys": wanted + ["f1"]], as: .anonymous)
        #expect(tooMany.status == 400 && tooMany.json["stratusErrorCode"] as? String == "limitExceeded")
        #expect((tooMany.json["reason"] as? String)?.contains("the limit is 1000") == true, "\(tooMany.json)")
        let modify = try await ws.post(
            "records/modify",
            [
                "operations": [Self.operation("forceUpdate", ["recordName": "wide", "recordType": "Wide"])],
                "desiredKeys": wanted + ["f1"],
            ])
        #expect(modify.status == 400 && modify.json["stratusErrorCode"] as? String == "limitExceeded")
    }

    @Test func writesNeedAUserAndEveryRequestCredentials() async throws {
        let ws = try WebServicesFixture()
        let anonymous = try await ws.post(
            "records/modify", ["operations": [Self.operation("create", Self.note)]], as: .anonymous)
        #expect(anonymous.status == 421, "\(anonymous.json)")
        #expect((anonymous.json["reason"] as? String)?.contains("signed-in user") == true)
        let none = try await ws.post("records/lookup", ["records": [["recordName": "x"]]], as: .none)
        #expect(none.status == 401)
        let wrong = try await ws.post(
            "records/lookup", ["records": [["recordName": "x"]]],
            as: .raw("ckAPIToken=" + String(repeating: "ab", count: 32)))
        #expect(wrong.status == 401)
        #expect(wrong.json["serverErrorCode"] as? String == "AUTHENTICATION_FAILED")
        let production = try await ws.post(
            "records/lookup", ["records": [["recordName": "x"]]], as: .anonymous, environment: "production")
        #expect(production.status == 401, "a development token is refused on production")
        let expiredSession = try await ws.post(
            "records/modify", ["operations": [Self.operation("create", Self.note)]],
            as: .raw("ckAPIToken=\(ws.apiToken)&ckWebAuthToken=not-a-session"))
        #expect(expiredSession.status == 421)
    }

    @Test func theSameOnAPrivatePostgreSQL() async throws {
        let ws = try WebServicesFixture(postgres: true)
        let created = try await ws.post("records/modify", ["operations": [Self.operation("create", Self.note)]])
        #expect(created.records.first?["recordChangeTag"] is String, "\(created.json)")
        let read = try await ws.post("records/lookup", ["records": [["recordName": "note-1"]]], as: .anonymous)
        let fields = read.records.first?["fields"] as? [String: [String: Any]]
        #expect(fields?["title"]?["value"] as? String == "Hello", "\(read.json)")
        _ = try await ws.post(
            "records/modify", ["operations": [Self.operation("create", Self.note)]], database: "private", as: .bob)
        let byAlice = try await ws.post(
            "records/lookup", ["records": [["recordName": "note-1"]]], database: "private")
        #expect(byAlice.records.first?["serverErrorCode"] as? String == "NOT_FOUND", "\(byAlice.json)")
    }
}
