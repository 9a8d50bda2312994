import Foundation
import Testing

/// The bytes of request bodies stratusd holds at once across connections
/// (`serverMaxBufferedBodyBytes`, decision 0012.5): a body that would pass them is refused with
/// 503 and `retryAfter` before it is read, applies nothing, and goes through once the bodies
/// held before it are released.
@Suite struct BodyBudgetTests {
    static let budget = 1 << 20

    /// A create of record `name` whose body is about `bytes` long.
    static func create(_ name: String, bytes: Int) -> [String: Any] {
        [
            "operations": [
                [
                    "operationType": "create",
                    "record": [
                        "recordName": name, "recordType": "Note",
                        "fields": ["text": ["value": String(repeating: "x", count: bytes)]],
                    ],
                ]
            ]
        ]
    }

    @Test func aBodyPastTheBudgetWaitsForTheOnesHeldBeforeIt() async throws {
        let ws = try WebServicesFixture(environment: [
            "STRATUS_SERVER_MAX_BUFFERED_BODY_BYTES": "\(Self.budget)",
            "STRATUS_SERVER_MAX_BODY_BYTES": "\(Self.budget)", "STRATUS_SERVER_MAX_ASSET_BYTES": "\(Self.budget)",
        ])
        let path =
            "/database/1/\(WebServicesFixture.container)/development/private/records/modify"
            + "?ckAPIToken=\(ws.apiToken)&ckWebAuthToken=\(ws.aliceSession)"
        var held: RawConnection? = try RawConnection(port: try #require(ws.server.baseURL.port))
        // 900,000 bytes of a declared 1,000,000: bytes are counted as they arrive.
        held?.send(
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: 1000000\r\n\r\n{\"pad\": \"" + String(repeating: "h", count: 899_990))
        // A create of 200 KB, a new record each time, sent until the held bytes are counted (the
        // server reads them on its own time): the refused one is the evidence, whenever it
        // comes, and its record must not exist. A byte more on the held connection each time
        // keeps it from the idle timeout under load.
        var attempt = 0
        var refused = try await ws.post("records/modify", Self.create("big0", bytes: 200_000), database: "private")
        while refused.status != 503, attempt < 100 {
            held?.send("h")
            try await Task.sleep(for: .milliseconds(100))
            attempt += 1
            refused = try await ws.post(
                "records/modify", Self.create("big\(attempt)", bytes: 200_000), database: "private")
        }
        #expect(refused.status == 503, "\(refused.json)")
        #expect(refused.json["serverErrorCode"] as? String == "TRY_AGAIN_LATER")
        #expect(refused.json["retryAfter"] as? Int == 1)
        #expect(refused.json["stratusErrorCode"] as? String == "serviceUnavailable")
        #expect((refused.json["reason"] as? String)?.contains("\(Self.budget) bytes") == true, "\(refused.json)")
        let lookup = try await ws.post(
            "records/lookup", ["records": [["recordName": "big\(attempt)"]]], database: "private")
        #expect(lookup.records.first?["serverErrorCode"] as? String == "NOT_FOUND", "nothing of it was applied")
        let small = try await ws.post("records/modify", Self.create("small", bytes: 10), database: "private")
        #expect(small.status == 200 && small.records.first?["recordName"] as? String == "small", "\(small.json)")

        withExtendedLifetime(held) {}
        held = nil  // closes the connection: its body is released
        var saved = refused
        for _ in 0..<300 where saved.status == 503 {
            try await Task.sleep(for: .milliseconds(100))
            saved = try await ws.post("records/modify", Self.create("after", bytes: 200_000), database: "private")
        }
        #expect(saved.status == 200 && saved.records.first?["recordName"] as? String == "after", "\(saved.json)")
    }
}
