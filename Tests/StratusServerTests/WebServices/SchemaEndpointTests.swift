import Foundation
import StratusWebServices
import Testing

/// The schema endpoints (decision 0020.9): a server-to-server key exports, imports and resets
/// the container environment's schema; a user's session may not; every answer matches the
/// OpenAPI document.
@Suite("Web Services: schema endpoints", .serialized)
struct SchemaEndpointTests {
    /// Sends `body` signed to `operation` in the public database; the answer, checked against
    /// the document.
    static func send(_ signer: ServerToServerHTTPTests.Signer, _ operation: String, _ body: String) async throws
        -> WebServicesFixture.RawAnswer
    {
        let path = signer.path(operation)
        let answer = try await signer.fixture.raw(
            "POST", String(path.dropFirst()), body: Data(body.utf8), as: .none,
            headers: try signer.headers(body: body, path: path))
        let document = try OpenAPIDocument.load()
        let schema = try document.responseSchema("POST", path, status: answer.status)
        let problems = document.problems(try JSONValue.parse(answer.body), schema)
        #expect(problems.isEmpty, "\(operation) \(answer.status) matches the document: \(problems)")
        return answer
    }

    static func importBody(_ text: String) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: ["schema": text]), as: UTF8.self)
    }

    @Test func aServerKeyImportsExportsAndResetsTheSchema() async throws {
        let signer = try ServerToServerHTTPTests.Signer()
        let schema = "DEFINE SCHEMA RECORD TYPE Note (title STRING QUERYABLE, k INT64 SORTABLE);"
        let imported = try await Self.send(signer, "schema/import", try Self.importBody(schema))
        #expect(imported.status == 200, "\(String(decoding: imported.body, as: UTF8.self))")
        #expect((imported.json["changes"] as? [String])?.contains("record type 'Note' is added") == true)
        let exported = try await Self.send(signer, "schema", "{}")
        #expect(exported.status == 200)
        #expect((exported.json["schema"] as? String)?.contains("title STRING QUERYABLE") == true)

        let broken = try await Self.send(signer, "schema/import", try Self.importBody("DEFINE SCHEMA RECORD TYPE"))
        #expect(broken.status == 400)
        #expect((broken.json["reason"] as? String)?.contains("1:") == true, "\(broken.json)")

        let reset = try await Self.send(signer, "schema/reset", "{}")
        #expect(reset.status == 200)
        let afterReset = try await Self.send(signer, "schema", "{}")
        #expect(afterReset.json["schema"] as? String == "DEFINE SCHEMA\n")
    }

    @Test func aUserSessionMayNotTouchTheSchema() async throws {
        let signer = try ServerToServerHTTPTests.Signer()
        let schema = "DEFINE SCHEMA RECORD TYPE Note (title STRING QUERYABLE);"
        let imported = try await Self.send(signer, "schema/import", try Self.importBody(schema))
        #expect(imported.status == 200)
        for operation in ["schema", "schema/import", "schema/reset"] {
            let answer = try await signer.fixture.post(operation, ["schema": "DEFINE SCHEMA"], as: .alice)
            #expect(answer.status == 403, "\(operation): \(answer.json)")
            #expect(answer.json["serverErrorCode"] as? String == "ACCESS_DENIED", "\(operation): \(answer.json)")
            #expect((answer.json["reason"] as? String)?.isEmpty == false, "\(operation): \(answer.json)")
        }
        // The refused import and reset changed nothing.
        let exported = try await Self.send(signer, "schema", "{}")
        #expect((exported.json["schema"] as? String)?.contains("title STRING QUERYABLE") == true, "\(exported.json)")
    }
}
