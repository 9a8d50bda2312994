import Foundation
import Testing

/// Malformed requests get the right status and a CloudKit error dictionary whose reason names
/// the problem, and nothing of a refused request is applied.
@Suite("stratusd: bad input")
struct BadInputTests {
    private func expectRefusal(
        _ answer: WebServicesFixture.Answer, status: Int, code: String, mentioning text: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(answer.status == status, "\(answer.json)", sourceLocation: sourceLocation)
        #expect(answer.json["serverErrorCode"] as? String == code, "\(answer.json)", sourceLocation: sourceLocation)
        let reason = answer.json["reason"] as? String ?? ""
        #expect(reason.contains(text), "reason '\(reason)' should mention '\(text)'", sourceLocation: sourceLocation)
        #expect((answer.json["uuid"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
    }

    private func raw(_ ws: WebServicesFixture, _ body: String, operation: String = "records/modify") async throws
        -> WebServicesFixture.Answer
    {
        try await ws.send(
            "POST", "database/1/\(WebServicesFixture.container)/development/public/\(operation)",
            body: Data(body.utf8), as: .alice)
    }

    @Test func badPathsAndMethods() async throws {
        let ws = try WebServicesFixture()
        let container = WebServicesFixture.container
        let unknown = try await ws.send(
            "POST", "database/1/\(container)/development/public/records/teleport", body: Data("{}".utf8), as: .alice)
        expectRefusal(unknown, status: 404, code: "NOT_FOUND", mentioning: "records/teleport")
        let environment = try await ws.send(
            "POST", "database/1/\(container)/staging/public/records/lookup", body: Data("{}".utf8), as: .alice)
        expectRefusal(environment, status: 404, code: "NOT_FOUND", mentioning: "staging")
        let database = try await ws.send(
            "POST", "database/1/\(container)/development/secret/records/lookup", body: Data("{}".utf8), as: .alice)
        expectRefusal(database, status: 404, code: "NOT_FOUND", mentioning: "secret")
        let method = try await ws.send(
            "GET", "database/1/\(container)/development/public/records/modify", body: nil, as: .alice)
        expectRefusal(method, status: 405, code: "BAD_REQUEST", mentioning: "POST")
        let unknownNoCredentials = try await ws.send(
            "POST", "database/1/\(container)/development/public/records/teleport", body: nil, as: .none)
        #expect(unknownNoCredentials.status == 401, "without credentials nothing is confirmed")
    }

    @Test func malformedBodies() async throws {
        let ws = try WebServicesFixture()
        expectRefusal(try await raw(ws, ""), status: 400, code: "BAD_REQUEST", mentioning: "JSON body")
        expectRefusal(try await raw(ws, #"{"operations": [}"#), status: 400, code: "BAD_REQUEST", mentioning: "JSON")
        expectRefusal(
            try await raw(ws, #"{"operations": 3}"#), status: 400, code: "BAD_REQUEST", mentioning: "operations")
        expectRefusal(
            try await raw(ws, #"{"operations": [{"operationType": "explode", "record": {"recordName": "x"}}]}"#),
            status: 400, code: "BAD_REQUEST", mentioning: "explode")
        expectRefusal(
            try await raw(
                ws, #"{"operations": [{"operationType": "update", "record": {"recordName": "x", "recordType": "T"}}]}"#),
            status: 400, code: "BAD_REQUEST", mentioning: "recordChangeTag")
        expectRefusal(
            try await raw(
                ws,
                #"{"operations": [{"operationType": "create", "record": {"recordName": "x", "recordType": "T", "fields": {"n": {"value": "seven", "type": "INT64"}}}}]}"#
            ), status: 400, code: "BAD_REQUEST", mentioning: "n")
        expectRefusal(
            try await raw(
                ws,
                #"{"operations": [{"operationType": "create", "record": {"recordName": "x", "recordType": "T", "fields": {"n": {"value": 1, "type": "COMPLEX"}}}}]}"#
            ), status: 400, code: "BAD_REQUEST", mentioning: "COMPLEX")
        expectRefusal(
            try await raw(ws, #"{"records": [{"recordName": 5}]}"#, operation: "records/lookup"), status: 400,
            code: "BAD_REQUEST", mentioning: "records[0].recordName")
    }

    @Test func aRefusedRequestAppliesNothing() async throws {
        let ws = try WebServicesFixture()
        let body = #"""
            {"operations": [
              {"operationType": "create", "record": {"recordName": "good", "recordType": "T", "fields": {"a": {"value": "x"}}}},
              {"operationType": "create", "record": {"recordName": "bad", "recordType": "T", "fields": {"a": {"value": [1, "x"], "type": "INT64_LIST"}}}}
            ]}
            """#
        expectRefusal(try await raw(ws, body), status: 400, code: "BAD_REQUEST", mentioning: "operations[1]")
        let looked = try await ws.post("records/lookup", ["records": [["recordName": "good"]]])
        #expect(looked.records.first?["serverErrorCode"] as? String == "NOT_FOUND", "\(looked.json)")
    }

    @Test func tooManyOperationsOrBytes() async throws {
        let ws = try WebServicesFixture()
        let operations = (0..<401).map { i in
            ["operationType": "create", "record": ["recordName": "r\(i)", "recordType": "T"]] as [String: Any]
        }
        let many = try await ws.post("records/modify", ["operations": operations])
        expectRefusal(many, status: 400, code: "BAD_REQUEST", mentioning: "401 operations")
        #expect(many.json["stratusErrorCode"] as? String == "limitExceeded")
        let huge = String(repeating: "x", count: 17 << 20)
        let big = try await raw(ws, #"{"operations": [], "pad": ""# + huge + #""}"#)
        expectRefusal(big, status: 413, code: "BAD_REQUEST", mentioning: "limit")
        let looked = try await ws.post("records/lookup", ["records": [["recordName": "r0"]]])
        #expect(looked.records.first?["serverErrorCode"] as? String == "NOT_FOUND")
        // A list of repeated keys is counted as sent, not after its repeats are merged.
        let repeated = Array(repeating: "x", count: 1_001)
        let keys = try await ws.post(
            "records/lookup",
            ["records": [["recordName": "r0", "desiredKeys": ["x"]], ["recordName": "r1"]], "desiredKeys": repeated])
        expectRefusal(keys, status: 400, code: "BAD_REQUEST", mentioning: "desiredKeys lists 1001 fields")
        #expect(keys.json["stratusErrorCode"] as? String == "limitExceeded")
        let itemKeys = try await ws.post(
            "records/lookup", ["records": [["recordName": "r0", "desiredKeys": repeated]]])
        expectRefusal(itemKeys, status: 400, code: "BAD_REQUEST", mentioning: "desiredKeys lists 1001 fields")
    }

    /// A body whose chunked framing is malformed (a chunk size that is not hexadecimal, or a
    /// body cut before its end) is the HTTP layer's refusal: 400 and the connection closed, as
    /// Hummingbird answers it; it is not logged as a failure of the server.
    @Test func malformedChunkedBodiesAreTheConnectionsRefusal() async throws {
        let ws = try WebServicesFixture()
        let path =
            "/database/1/\(WebServicesFixture.container)/development/private/records/changes"
            + "?ckAPIToken=\(ws.apiToken)&ckWebAuthToken=\(ws.aliceSession)"
        for (body, endsSending) in [("zz\r\nabc\r\n0\r\n\r\n", false), ("a\r\n{\"zon", true)] {
            let connection = try RawConnection(port: try #require(ws.server.baseURL.port))
            connection.send(
                "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n" + body)
            if endsSending { connection.endSending() }
            let answer = connection.receiveUntilClose(timeout: 10)
            let text = String(decoding: answer.bytes, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 400"), "\(body.debugDescription): \(text.prefix(200))")
            #expect(answer.closed, "the connection is closed after a malformed body")
        }
        let zones = try await ws.send(
            "GET", "database/1/\(WebServicesFixture.container)/development/private/zones/list", body: nil, as: .alice)
        #expect(zones.status == 200, "the server answers on")
        #expect(!ws.server.standardError.contains("internal failure"), "\(ws.server.standardError.suffix(2_000))")
    }
}
