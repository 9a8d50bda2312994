import Foundation
import StratusWebServices
import Testing

/// `stratus/zones/purgeChangeHistory` over HTTP (decision 0021): the owner purges, every other
/// caller is refused with CloudKit's error dictionary and purges nothing, and each answer is
/// the one `Docs/stratusd.openapi.yaml` documents.
@Suite("Web Services: purging a zone's change history")
struct ZoneHistoryPurgeEndpointTests {
    static let operation = "stratus/zones/purgeChangeHistory"
    let ws: WebServicesFixture
    let document: OpenAPIDocument

    init() async throws {
        ws = try WebServicesFixture()
        document = try OpenAPIDocument.load()
    }

    /// `POST` of the endpoint with `body` as `credentials` in `database`, its body checked
    /// against the document for its status.
    func purge(_ body: String, database: String, as credentials: WebServicesFixture.Credentials) async throws
        -> WebServicesFixture.RawAnswer
    {
        let path = "database/1/\(WebServicesFixture.container)/development/\(database)/\(Self.operation)"
        let answer = try await ws.raw("POST", path, body: Data(body.utf8), as: credentials)
        let schema = try document.responseSchema("POST", "/" + path, status: answer.status)
        let problems = document.problems(try JSONValue.parse(answer.body), schema)
        #expect(problems.isEmpty, "\(answer.status): \(problems) in \(String(decoding: answer.body, as: UTF8.self))")
        return answer
    }

    /// Expects CloudKit's error dictionary with `code` and `stratusCode` and a non-empty reason.
    func expectRefusal(_ answer: WebServicesFixture.RawAnswer, _ status: Int, _ code: String, _ stratusCode: String) {
        #expect(answer.status == status)
        #expect(answer.json["serverErrorCode"] as? String == code)
        #expect(answer.json["stratusErrorCode"] as? String == stratusCode)
        #expect((answer.json["reason"] as? String)?.isEmpty == false)
        #expect((answer.json["uuid"] as? String)?.isEmpty == false)
    }

    /// Alice's zone `Z` with `a` and `b`, then `b` deleted: answers the token from before the
    /// deletion (whose changes report the tombstone) and Alice's user record name.
    func prepareAlicesZone() async throws -> (token: String, alice: String) {
        let zone: [String: Any] = ["zoneName": "Z"]
        let made = try await ws.post(
            "zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": zone]]]],
            database: "private")
        #expect(made.status == 200)
        let saved = try await ws.post(
            "records/modify",
            [
                "zoneID": zone,
                "operations": ["a", "b"].map {
                    ["operationType": "create", "record": ["recordName": $0, "recordType": "Note"]]
                },
            ], database: "private")
        #expect(saved.status == 200)
        let changes = try await ws.post("records/changes", ["zoneID": zone], database: "private")
        let token = try #require(changes.json["syncToken"] as? String)
        let deleted = try await ws.post(
            "records/modify",
            ["zoneID": zone, "operations": [["operationType": "forceDelete", "record": ["recordName": "b"]]]],
            database: "private")
        #expect(deleted.status == 200)
        let caller = try await ws.post("users/caller", [String: Any](), database: "private")
        return (token, try #require(caller.json["userRecordName"] as? String))
    }

    /// The records/changes answer to Alice's `token` in zone `Z`.
    func changes(since token: String) async throws -> WebServicesFixture.Answer {
        try await ws.post("records/changes", ["zoneID": ["zoneName": "Z"], "syncToken": token], database: "private")
    }

    @Test func nobodyButTheOwnerPurgesAndARefusalPurgesNothing() async throws {
        let (token, alice) = try await prepareAlicesZone()
        let alicesZone = #"{"zoneID": {"zoneName": "Z", "ownerRecordName": "\#(alice)"}}"#
        expectRefusal(
            try await purge(alicesZone, database: "private", as: .bob), 403, "ACCESS_DENIED", "permissionFailure")
        // Bob without an owner names his own database, which has no zone Z.
        expectRefusal(
            try await purge(#"{"zoneID": {"zoneName": "Z"}}"#, database: "private", as: .bob), 404, "ZONE_NOT_FOUND",
            "zoneNotFound")
        let defaultZone = #"{"zoneID": {"zoneName": "_defaultZone"}}"#
        expectRefusal(
            try await purge(defaultZone, database: "public", as: .alice), 403, "ACCESS_DENIED", "permissionFailure")
        expectRefusal(
            try await purge(defaultZone, database: "shared", as: .alice), 403, "ACCESS_DENIED", "permissionFailure")
        expectRefusal(
            try await purge(defaultZone, database: "public", as: .anonymous), 421, "AUTHENTICATION_REQUIRED",
            "notAuthenticated")
        expectRefusal(try await purge("{}", database: "private", as: .alice), 400, "BAD_REQUEST", "invalidArguments")
        let untouched = try await changes(since: token)
        #expect(untouched.status == 200)
        #expect(untouched.records.map { $0["recordName"] as? String } == ["b"], "the tombstone of b is still reported")
    }

    @Test func theOwnersPurgeExpiresEarlierTokens() async throws {
        let (token, alice) = try await prepareAlicesZone()
        let purged = try await purge(#"{"zoneID": {"zoneName": "Z"}}"#, database: "private", as: .alice)
        #expect(purged.status == 200)
        #expect(purged.json["purged"] as? Bool == true)
        #expect((purged.json["zoneID"] as? [String: Any])?["ownerRecordName"] as? String == alice)
        let expired = try await changes(since: token)
        #expect(expired.status == 400)
        #expect(expired.json["stratusErrorCode"] as? String == "changeTokenExpired", "\(expired.json)")
        let fresh = try await ws.post("records/changes", ["zoneID": ["zoneName": "Z"]], database: "private")
        #expect(fresh.records.map { $0["recordName"] as? String } == ["a"], "b's tombstone is gone")
    }

    @Test func aServerKeyPurgesThePublicDatabaseOnly() async throws {
        let key = try ws.addServerKey()
        let body = Data(#"{"zoneID": {"zoneName": "_defaultZone"}}"#.utf8)
        let prefix = "/database/1/\(WebServicesFixture.container)/development"
        let publicAnswer = try await ws.signedPost("\(prefix)/public/\(Self.operation)", body: body, key: key)
        #expect(publicAnswer.status == 200, "\(publicAnswer.json)")
        #expect(publicAnswer.json["purged"] as? Bool == true)
        let privateAnswer = try await ws.signedPost("\(prefix)/private/\(Self.operation)", body: body, key: key)
        #expect(privateAnswer.status == 403)
        #expect(privateAnswer.json["serverErrorCode"] as? String == "ACCESS_DENIED")
    }
}
