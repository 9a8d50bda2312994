import Foundation
import Stratus
import StratusTestSupport
import Testing

/// Path segments percent-encoded by the client (RFC 3986 §2.1) name what their decoded form
/// names: `iCloud%2Ecom…`, `developm%65nt` and `pr%69vate` reach the same database as the
/// plain path; an operation ID, a courier token or an asset ticket is found encoded. A `%`
/// sequence that does not decode, bytes that are not UTF-8, and a namespace segment that
/// decodes to `.`, `..`, a `/` or a control character are 400 `BAD_REQUEST` naming the
/// segment. The requests go over a raw connection, byte for byte: no client library
/// normalises their paths first.
@Suite("stratusd: percent-encoded path segments")
struct PercentEncodedPathTests {
    /// ``WebServicesFixture/container`` with two characters encoded.
    static let container = "iCloud%2Ecom.example.str%61tus"

    /// `method` to `path` (below the server, with its query), sent as given with `body`.
    static func exact(_ ws: WebServicesFixture, _ method: String, _ path: String, body: String = "")
        async throws -> WebServicesFixture.RawAnswer
    {
        let port = try #require(ws.server.baseURL.port)
        let bytes = try await offPool { () throws -> [UInt8] in
            let connection = try RawConnection(port: port)
            connection.send(
                "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            return connection.receiveUntilClose(timeout: 60).bytes
        }
        return try Self.answer(bytes)
    }

    /// The status and body of a whole HTTP/1.1 answer (its body sent whole or in chunks).
    static func answer(_ bytes: [UInt8]) throws -> WebServicesFixture.RawAnswer {
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts[0].lowercased()
        let status = try #require(Int(head.split(separator: " ").dropFirst().first ?? ""), "\(text)")
        var body = parts.dropFirst().joined(separator: "\r\n\r\n")
        if head.contains("transfer-encoding: chunked") {
            var chunks = body.components(separatedBy: "\r\n")
            body = ""
            // Size lines and chunks alternate; the JSON bodies here hold no CR LF of their own.
            while chunks.count >= 2, let size = Int(chunks[0], radix: 16), size > 0 {
                body += chunks[1]
                chunks.removeFirst(2)
            }
        }
        return WebServicesFixture.RawAnswer(status: status, body: Data(body.utf8), contentType: nil)
    }

    /// The query of `credentials`' requests.
    static func query(_ ws: WebServicesFixture, _ credentials: WebServicesFixture.Credentials = .alice) -> String {
        switch credentials {
        case .bob: "?ckAPIToken=\(ws.apiToken)&ckWebAuthToken=\(ws.bobSession)"
        default: "?ckAPIToken=\(ws.apiToken)&ckWebAuthToken=\(ws.aliceSession)"
        }
    }

    /// `text` with its first character percent-encoded.
    static func encodingFirst(_ text: String) -> String {
        let first = text.utf8.first.map { String(format: "%%%02X", $0) } ?? ""
        return first + text.dropFirst()
    }

    @Test func encodedNamespaceSegmentsNameTheSameDatabase() async throws {
        let ws = try WebServicesFixture()
        let body =
            #"{"operations": [{"operationType": "create", "record": {"recordName": "encoded", "recordType": "Note"}}]}"#
        let saved = try await Self.exact(
            ws, "POST", "/database/1/\(Self.container)/developm%65nt/pr%69vate/records/modify" + Self.query(ws),
            body: body)
        #expect(saved.status == 200, "\(saved.json)")
        let record = (saved.json["records"] as? [[String: Any]])?.first
        #expect(record?["recordName"] as? String == "encoded" && record?["serverErrorCode"] == nil, "\(saved.json)")
        let plain = try await ws.post("records/lookup", ["records": [["recordName": "encoded"]]], database: "private")
        #expect(plain.records.first?["serverErrorCode"] == nil, "the plain path reads it: \(plain.json)")
        let elsewhere = try await ws.post("records/lookup", ["records": [["recordName": "encoded"]]])
        #expect(elsewhere.records.first?["serverErrorCode"] as? String == "NOT_FOUND", "not in the public database")

        let courier = try await Self.exact(
            ws, "POST", "/database/1/\(Self.container)/developm%65nt/tokens/create" + Self.query(ws), body: "{}")
        #expect(courier.status == 200, "\(courier.json)")
        let path = try #require((courier.json["webcourierURL"] as? String).flatMap { URL(string: $0)?.path })
        let token = String(path.split(separator: "/").last ?? "")
        let poll = try await Self.exact(ws, "GET", "/notifications/1/\(Self.encodingFirst(token))?timeout=0")
        #expect(poll.status == 200, "the encoded courier token is the token: \(poll.json)")
    }

    @Test func anEncodedOperationIDTicketOrSessionContainerIsFound() async throws {
        let ws = try WebServicesFixture()
        try await ws.makeZone(LongLivedEndpointTests.zone.zoneName)
        let id = "a b/c é"
        #expect(try await ws.submit(LongLivedEndpointTests.modify(1), id: id).status == 200)
        let base = "/database/1/\(WebServicesFixture.container)/development/private"
        let looked = try await Self.exact(
            ws, "GET", "\(base)/stratus/operations/a%20b%2Fc%20%C3%A9" + Self.query(ws))
        #expect(looked.status == 200, "\(looked.json)")
        #expect(looked.json["operationID"] as? String == id, "\(looked.json)")

        let uploadURL = try await ws.uploadURLs(fields: ["photo"]).first
        let upload = try #require(uploadURL.flatMap { URL(string: $0) })
        let ticket = upload.lastPathComponent
        let uploaded = try await Self.exact(
            ws, "POST", "/assets/1/\(Self.encodingFirst(ticket))?\(upload.query ?? "")", body: "bytes")
        #expect(uploaded.status == 200 && uploaded.json["singleFile"] != nil, "\(uploaded.json)")

        let revoked = try await Self.exact(
            ws, "POST", "/auth/1/\(Self.container)/developm%65nt/sessions/revoke" + Self.query(ws, .bob),
            body: #"{"ckWebAuthToken": "\#(ws.bobSession)"}"#)
        #expect(revoked.status == 200 && revoked.json["revoked"] as? Bool == true, "\(revoked.json)")
    }

    @Test func segmentsThatDoNotDecodeOrEscapeTheirNamespaceAreRefused() async throws {
        let ws = try WebServicesFixture()
        let container = WebServicesFixture.container
        let refused: [(path: String, segment: String)] = [
            ("/database/1/iCloud%ZZ/development/private/users/caller", "container"),
            ("/database/1/\(container)%/development/private/users/caller", "container"),
            ("/database/1/\(container)%FF/development/private/users/caller", "container"),
            ("/database/1/\(container)%2F..%2Fother/development/private/users/caller", "container"),
            ("/database/1/%2E%2E/development/private/users/caller", "container"),
            ("/database/1/../development/private/users/caller", "container"),
            ("/database/1/\(container)%00/development/private/users/caller", "container"),
            ("/database/1/\(container)/dev%2/private/users/caller", "environment"),
            ("/database/1/\(container)/development/pr%C3/users/caller", "database"),
            ("/database/1/iCloud%ZZ/development/private/no/such/endpoint", "container"),
            ("/database/1/\(container)/development/private/stratus/operations/%ZZ/cancel", "id"),
            ("/database/1/iCloud%ZZ/development/tokens/create", "container"),
            ("/auth/1/iCloud%ZZ/development/sessions/revoke", "container"),
        ]
        for (path, segment) in refused {
            let answer = try await Self.exact(ws, "POST", path + Self.query(ws), body: "{}")
            #expect(answer.status == 400, "\(path): \(answer.status) \(answer.json)")
            #expect(answer.json["serverErrorCode"] as? String == "BAD_REQUEST", "\(path): \(answer.json)")
            let reason = answer.json["reason"] as? String ?? ""
            #expect(reason.contains("path's \(segment) segment"), "\(path): \(reason)")
        }
        let token = try await Self.exact(ws, "GET", "/notifications/1/%ZZ")
        #expect(token.status == 400 && (token.json["reason"] as? String)?.contains("token segment") == true)
        let ticket = try await Self.exact(ws, "POST", "/assets/1/%ZZ?e=1&s=x", body: "x")
        #expect(ticket.status == 400 && (ticket.json["reason"] as? String)?.contains("ticket segment") == true)
        #expect(!ws.server.standardError.contains("internal failure"), "\(ws.server.standardError.suffix(2_000))")
    }
}
