import Foundation
import Testing

/// Zones and change feeds through a real `stratusd`: `zones/modify|list|lookup`,
/// `records/changes`, `changes/zone`, `changes/database` and `zones/changes`, with tokens that
/// carry on where they left off and refuse to work for anyone else.
@Suite("stratusd: zones and changes")
struct ChangesEndpointTests {
    static var zone: [String: Any] { ["zoneName": "Notes"] }

    private func save(_ ws: WebServicesFixture, _ names: [String], as who: WebServicesFixture.Credentials = .alice)
        async throws
    {
        let operations = names.map { name -> [String: Any] in
            [
                "operationType": "forceReplace",
                "record": ["recordName": name, "recordType": "Note", "fields": ["title": ["value": name]]],
            ]
        }
        let answer = try await ws.post(
            "records/modify", ["operations": operations, "zoneID": Self.zone], database: "private", as: who)
        #expect(answer.records.allSatisfy { $0["serverErrorCode"] == nil }, "\(answer.json)")
    }

    private func makeZone(_ ws: WebServicesFixture, as who: WebServicesFixture.Credentials = .alice) async throws {
        let made = try await ws.post(
            "zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": Self.zone]]]],
            database: "private", as: who)
        #expect(made.status == 200, "\(made.json)")
        let zones = made.json["zones"] as? [[String: Any]]
        #expect((zones?.first?["zoneID"] as? [String: Any])?["zoneName"] as? String == "Notes", "\(made.json)")
        #expect(zones?.first?["atomic"] as? Bool == true)
    }

    @Test func zonesAreMadeListedAndLookedUp() async throws {
        let ws = try WebServicesFixture()
        try await makeZone(ws)
        let list = try await ws.send(
            "GET", "database/1/\(WebServicesFixture.container)/development/private/zones/list", body: nil, as: .alice)
        let names = (list.json["zones"] as? [[String: Any]])?.compactMap {
            ($0["zoneID"] as? [String: Any])?["zoneName"] as? String
        }
        #expect(names?.sorted() == ["Notes", "_defaultZone"], "\(list.json)")
        let lookup = try await ws.post(
            "zones/lookup", ["zones": [["zoneID": Self.zone], ["zoneID": ["zoneName": "Missing"]]]], database: "private"
        )
        let codes = (lookup.json["zones"] as? [[String: Any]])?.map { $0["serverErrorCode"] as? String }
        #expect(codes == [nil, "ZONE_NOT_FOUND"], "\(lookup.json)")
        let bobs = try await ws.post("zones/lookup", ["zones": [["zoneID": Self.zone]]], database: "private", as: .bob)
        #expect(
            (bobs.json["zones"] as? [[String: Any]])?.first?["serverErrorCode"] as? String == "ZONE_NOT_FOUND",
            "Bob does not see Alice's zone")
    }

    /// An answer of more records than one piece of `ChangesAnswerStream` is sent in pieces
    /// (no `Content-Length`) and arrives whole: every record once, in order, then the token.
    @Test func aLongChangeAnswerIsSentInPiecesAndArrivesWhole() async throws {
        let ws = try WebServicesFixture()
        try await makeZone(ws)
        let names = (0..<450).map { "r" + String(1000 + $0) }
        try await save(ws, Array(names[..<400]))
        try await save(ws, Array(names[400...]))
        let path = "database/1/\(WebServicesFixture.container)/development/private/records/changes"
        let long = try await ws.raw(
            "POST", path, body: try JSONSerialization.data(withJSONObject: ["zoneID": Self.zone, "resultsLimit": 500]),
            as: .alice)
        #expect(long.status == 200)
        #expect(long.contentLength == nil, "450 records go in pieces")
        let records = long.json["records"] as? [[String: Any]] ?? []
        #expect(records.compactMap { $0["recordName"] as? String } == names)
        #expect(records.allSatisfy { ($0["fields"] as? [String: Any])?["title"] != nil })
        #expect(long.json["moreComing"] as? Bool == false)
        let token = try #require(long.json["syncToken"] as? String)

        try await save(ws, ["late"])
        let short = try await ws.raw(
            "POST", path,
            body: try JSONSerialization.data(withJSONObject: ["zoneID": Self.zone, "syncToken": token]), as: .alice)
        #expect(short.contentLength == String(short.body.count), "one record goes whole, with its length")
        #expect((short.json["records"] as? [[String: Any]])?.compactMap { $0["recordName"] as? String } == ["late"])
    }

    /// `changes/zone` reads each zone once: a zone named twice is refused (400, naming it), so
    /// a small request cannot have one zone's changes read and written hundreds of times.
    @Test func aZoneNamedTwiceInChangesZoneIsRefused() async throws {
        let ws = try WebServicesFixture()
        try await makeZone(ws)
        try await save(ws, ["a"])
        let twice = try await ws.post(
            "changes/zone", ["zones": [["zoneID": Self.zone], ["zoneID": Self.zone]]], database: "private")
        #expect(twice.status == 400, "\(twice.json)")
        #expect(twice.json["serverErrorCode"] as? String == "BAD_REQUEST")
        #expect(
            (twice.json["reason"] as? String)?.contains("zones[1] names zone 'Notes' again") == true, "\(twice.json)")
        let once = try await ws.post("changes/zone", ["zones": [["zoneID": Self.zone]]], database: "private")
        #expect(once.status == 200, "\(once.json)")
    }

    /// The zones of one `changes/zone` answer share one batch's 16 MiB: a second zone gets
    /// what the first left, and moreComing; a later request carries on. (400 zones of 16 MiB
    /// each would otherwise be 6.4 GB held for one answer.)
    @Test func theZonesOfOneAnswerShareItsByteBudget() async throws {
        let ws = try WebServicesFixture()
        let blob = Data(repeating: 9, count: 900_000).base64EncodedString()
        for zoneName in ["A", "B"] {
            let zone: [String: Any] = ["zoneName": zoneName]
            let made = try await ws.post(
                "zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": zone]]]],
                database: "private")
            #expect(made.status == 200, "\(made.json)")
            for n in 0..<12 {
                let record: [String: Any] = [
                    "recordName": "\(zoneName)\(n)", "recordType": "Blob",
                    "fields": ["data": ["value": blob, "type": "BYTES"]],
                ]
                let saved = try await ws.post(
                    "records/modify", ["operations": [["operationType": "create", "record": record]], "zoneID": zone],
                    database: "private")
                #expect(saved.records.first?["serverErrorCode"] == nil, "\(saved.json)")
            }
        }
        let both = try await ws.post(
            "changes/zone",
            ["zones": [["zoneID": ["zoneName": "A"]], ["zoneID": ["zoneName": "B"]]], "resultsLimit": 2_000],
            database: "private")
        let zones = try #require(both.json["zones"] as? [[String: Any]], "\(both.json)")
        let counts = zones.map { ($0["records"] as? [Any])?.count ?? -1 }
        #expect(counts.first == 12 && (counts.last ?? 0) < 12 && (counts.last ?? 0) >= 1, "\(counts)")
        #expect(zones.map { $0["moreComing"] as? Bool } == [false, true])
        let token = try #require(zones.last?["syncToken"] as? String)
        let rest = try await ws.post(
            "records/changes", ["zoneID": ["zoneName": "B"], "syncToken": token], database: "private")
        #expect(rest.records.count + (counts.last ?? 0) == 12, "\(rest.records.count)")
    }

    @Test func aSyncTokenCarriesOnWhereItLeftOff() async throws {
        let ws = try WebServicesFixture()
        try await makeZone(ws)
        try await save(ws, ["a", "b", "c"])
        let first = try await ws.post(
            "records/changes", ["zoneID": Self.zone, "resultsLimit": 2], database: "private")
        #expect(first.status == 200, "\(first.json)")
        #expect(first.records.compactMap { $0["recordName"] as? String } == ["a", "b"])
        #expect(first.json["moreComing"] as? Bool == true)
        let token1 = try #require(first.json["syncToken"] as? String)
        let second = try await ws.post(
            "records/changes", ["zoneID": Self.zone, "syncToken": token1], database: "private")
        #expect(second.records.compactMap { $0["recordName"] as? String } == ["c"])
        #expect(second.json["moreComing"] as? Bool == false)
        let token2 = try #require(second.json["syncToken"] as? String)

        _ = try await ws.post(
            "records/modify",
            ["operations": [["operationType": "forceDelete", "record": ["recordName": "a"]]], "zoneID": Self.zone],
            database: "private")
        try await save(ws, ["d"])
        let third = try await ws.post(
            "changes/zone", ["zones": [["zoneID": Self.zone, "syncToken": token2]]], database: "private")
        let zone = try #require((third.json["zones"] as? [[String: Any]])?.first, "\(third.json)")
        let records = zone["records"] as? [[String: Any]] ?? []
        #expect(records.map { $0["recordName"] as? String } == ["a", "d"])
        #expect(records.map { $0["deleted"] as? Bool } == [true, false])
    }

    @Test func databaseChangesListTheZones() async throws {
        let ws = try WebServicesFixture()
        let empty = try await ws.post("changes/database", [:] as [String: Any], database: "private")
        #expect(empty.status == 200, "\(empty.json)")
        let token = try #require(empty.json["syncToken"] as? String)
        try await makeZone(ws)
        let changed = try await ws.post("changes/database", ["syncToken": token], database: "private")
        let names = (changed.json["zones"] as? [[String: Any]])?.compactMap {
            ($0["zoneID"] as? [String: Any])?["zoneName"] as? String
        }
        #expect(names == ["Notes"], "\(changed.json)")
        let older = try await ws.post("zones/changes", ["metaSyncToken": token], database: "private")
        #expect(older.json["metaSyncToken"] is String, "\(older.json)")
    }

    @Test func tokensAreRefusedWhenMalformedOrSomeoneElses() async throws {
        let ws = try WebServicesFixture()
        try await makeZone(ws)
        try await makeZone(ws, as: .bob)
        try await save(ws, ["a"])
        let alices = try await ws.post("records/changes", ["zoneID": Self.zone], database: "private")
        let token = try #require(alices.json["syncToken"] as? String)
        let byBob = try await ws.post(
            "records/changes", ["zoneID": Self.zone, "syncToken": token], database: "private", as: .bob)
        #expect(byBob.status == 400, "\(byBob.json)")
        #expect(byBob.json["stratusErrorCode"] as? String == "changeTokenExpired")
        #expect(byBob.records.isEmpty)
        let garbage = try await ws.post(
            "records/changes", ["zoneID": Self.zone, "syncToken": "not a token!"], database: "private")
        #expect(garbage.status == 400)
        #expect((garbage.json["reason"] as? String)?.contains("syncToken") == true)
        let tampered = try await ws.post(
            "records/changes", ["zoneID": Self.zone, "syncToken": Self.tampered(token)],
            database: "private")
        #expect(tampered.status == 400, "\(tampered.json)")
        let inPublic = try await ws.post("changes/database", [:] as [String: Any])
        #expect(inPublic.status == 400, "the public database has no database changes: \(inPublic.json)")
    }

    /// `token` with a character in the middle changed for another (the last character of
    /// unpadded base64 may carry only unused bits).
    static func tampered(_ token: String) -> String {
        var characters = Array(token)
        let middle = characters.count / 2
        characters[middle] = characters[middle] == "A" ? "B" : "A"
        return String(characters)
    }
}
