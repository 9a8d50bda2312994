import Foundation
import Testing

/// `/auth/1/{container}/{environment}/sessions/create|revoke`: an app's backend, signing with
/// a server-to-server key, signs its users in; a session revokes itself.
@Suite("stratusd: sessions over HTTP")
struct SessionEndpointTests {
    static let base = "/auth/1/\(WebServicesFixture.container)/development/sessions"

    @Test func aSignedRequestMakesASessionThatWritesAsItsUser() async throws {
        let ws = try WebServicesFixture()
        let key = try ws.addServerKey()
        let body = Data(#"{"userID": "carol@example.com", "ttlSeconds": 3600}"#.utf8)
        let asked = Date()
        let made = try await ws.signedPost("\(Self.base)/create", body: body, key: key)
        let answered = Date()
        #expect(made.status == 200, "\(made.json)")
        let session = try #require(made.json["ckWebAuthToken"] as? String)
        let carol = try #require(made.json["userRecordName"] as? String)
        let expires = try #require((made.json["expires"] as? NSNumber)?.doubleValue)
        // An hour from when the server made it, between the request and its answer (a loaded
        // machine can take minutes to answer).
        let expiry = Date(timeIntervalSince1970: expires / 1000)
        #expect(expiry >= asked.addingTimeInterval(3599) && expiry <= answered.addingTimeInterval(3601))

        let saved = try await ws.post(
            "records/modify",
            ["operations": [["operationType": "create", "record": ["recordName": "c", "recordType": "Note"]]]],
            as: .raw("ckAPIToken=\(ws.apiToken)&ckWebAuthToken=\(session)"))
        let creator = (saved.records.first?["created"] as? [String: Any])?["userRecordName"] as? String
        #expect(creator == carol, "\(saved.json)")

        let unsigned = try await ws.send(
            "POST", String(Self.base.dropFirst()) + "/create", body: body, as: .none)
        #expect(unsigned.status == 401, "an unsigned request makes no session: \(unsigned.json)")
    }

    @Test func onlyAServerKeyMakesSessionsAndASessionRevokesOnlyItself() async throws {
        let ws = try WebServicesFixture()
        let asUser = try await ws.send(
            "POST", String(Self.base.dropFirst()) + "/create", body: Data(#"{"userID": "mallory"}"#.utf8), as: .alice)
        #expect(asUser.status == 403, "\(asUser.json)")
        #expect(asUser.json["serverErrorCode"] as? String == "ACCESS_DENIED")

        let others = try await ws.send(
            "POST", String(Self.base.dropFirst()) + "/revoke",
            body: try JSONSerialization.data(withJSONObject: ["ckWebAuthToken": ws.bobSession]), as: .alice)
        #expect(others.status == 403, "Alice cannot revoke Bob's session: \(others.json)")
        let own = try await ws.send(
            "POST", String(Self.base.dropFirst()) + "/revoke",
            body: try JSONSerialization.data(withJSONObject: ["ckWebAuthToken": ws.aliceSession]), as: .alice)
        #expect(own.status == 200, "\(own.json)")
        let after = try await ws.post(
            "records/modify",
            ["operations": [["operationType": "create", "record": ["recordName": "x", "recordType": "Note"]]]])
        #expect(after.status == 421, "a revoked session signs nobody in: \(after.json)")
        let bobStill = try await ws.post("records/lookup", ["records": [["recordName": "x"]]], as: .bob)
        #expect(bobStill.status == 200)
    }
}
