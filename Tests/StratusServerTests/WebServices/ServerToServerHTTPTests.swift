import Crypto
import Foundation
import StratusServer
import StratusWebServices
import Testing

/// Server-to-server keys over HTTP (decision 0013.5–6): a P-256 key made by the test, its
/// public half added with `stratusd admin key add --pem`, requests signed over
/// `date:base64(SHA-256(body)):path`.
@Suite("Web Services: server-to-server keys over HTTP", .serialized)
struct ServerToServerHTTPTests {
    /// The fixture's server with a key of the fixture's container (in `environment`,
    /// development unless told).
    final class Signer: Sendable {
        let fixture: WebServicesFixture
        let privateKey = P256.Signing.PrivateKey()
        let keyID: String
        let environment: String

        /// A key for `environment` of `fixture`'s container (else of a new SQLite fixture's).
        init(environment: String = "development", fixture: WebServicesFixture? = nil) throws {
            self.fixture = try fixture ?? WebServicesFixture()
            self.environment = environment
            let pem = self.fixture.directory.appending("public.pem")
            try privateKey.publicKey.pemRepresentation.write(to: pem, atomically: true, encoding: .utf8)
            keyID = try self.fixture.admin(
                [
                    "key", "add", "--container", WebServicesFixture.container, "--environment", environment, "--pem",
                    pem.path,
                ])
        }

        /// The path of `operation` in `database`.
        func path(_ operation: String, _ database: String = "public") -> String {
            "/database/1/\(WebServicesFixture.container)/\(environment)/\(database)/\(operation)"
        }

        /// The three headers of a request of `body` to `path`, signed at `date`.
        func headers(body: String, path: String, date: Date = Date(), keyID: String? = nil) throws -> [String: String] {
            let dateText = date.formatted(.iso8601)
            let message = "\(dateText):\(Data(SHA256.hash(data: Data(body.utf8))).base64EncodedString()):\(path)"
            let signature = try privateKey.signature(for: Data(message.utf8))
            return [
                "X-Apple-CloudKit-Request-KeyID": keyID ?? self.keyID,
                "X-Apple-CloudKit-Request-ISO8601Date": dateText,
                "X-Apple-CloudKit-Request-SignatureV1": signature.derRepresentation.base64EncodedString(),
            ]
        }

        /// Sends `body` to `path` with `headers` (and `query`, if any); the status and `serverErrorCode`.
        func send(_ body: String, _ path: String, _ headers: [String: String], query: String? = nil) async throws
            -> (Int, String?)
        {
            let answer = try await fixture.raw(
                "POST", String(path.dropFirst()), body: Data(body.utf8), as: query.map { .raw($0) } ?? .none,
                headers: headers)
            let json = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
            return (answer.status, json?["serverErrorCode"] as? String)
        }
    }

    static let write =
        #"{"operations": [{"operationType": "forceUpdate", "record": {"recordName": "s2s", "recordType": "Note"}}]}"#
    static let read = #"{"records": [{"recordName": "s2s"}]}"#

    @Test func aSignedRequestReadsAndWritesThePublicDatabaseOnly() async throws {
        let signer = try Signer()
        let modify = signer.path("records/modify")
        #expect(
            try await signer.send(Self.write, modify, try signer.headers(body: Self.write, path: modify)) == (200, nil))
        let lookup = signer.path("records/lookup")
        #expect(
            try await signer.send(Self.read, lookup, try signer.headers(body: Self.read, path: lookup)) == (200, nil))
        let zones = signer.path("zones/list", "private")
        let denied = try await signer.fixture.raw(
            "POST", String(zones.dropFirst()), body: Data("{}".utf8), as: .none,
            headers: try signer.headers(body: "{}", path: zones))
        #expect(denied.status == 403)
        let document = try OpenAPIDocument.load()
        let schema = try document.responseSchema("POST", zones, status: 403)
        let problems = document.problems(try JSONValue.parse(denied.body), schema)
        #expect(problems.isEmpty, "the 403 matches the document: \(problems)")
        #expect(String(decoding: denied.body, as: UTF8.self).contains("ACCESS_DENIED"))
    }

    @Test func replaysOtherBodiesOldDatesAndUnknownKeysAreRefused() async throws {
        let signer = try Signer()
        let lookup = signer.path("records/lookup")
        let failed = (401, "AUTHENTICATION_FAILED" as String?)
        let headers = try signer.headers(body: Self.read, path: lookup)
        #expect(try await signer.send(Self.read, lookup, headers) == (200, nil))
        #expect(try await signer.send(Self.read, lookup, headers) == failed, "a replay")
        let fresh = try signer.headers(body: Self.read, path: lookup)
        #expect(try await signer.send(#"{"records": []}"#, lookup, fresh) == failed, "another body")
        let other = signer.path("zones/lookup")
        #expect(try await signer.send(Self.read, other, fresh) == failed, "another path")
        let old = try signer.headers(body: Self.read, path: lookup, date: Date().addingTimeInterval(-301))
        #expect(try await signer.send(Self.read, lookup, old) == failed, "a date 301 s old")
        let ahead = try signer.headers(body: Self.read, path: lookup, date: Date().addingTimeInterval(120))
        #expect(try await signer.send(Self.read, lookup, ahead) == failed, "a date 120 s ahead")
        let unknown = try signer.headers(body: Self.read, path: lookup, keyID: String(repeating: "0", count: 32))
        #expect(try await signer.send(Self.read, lookup, unknown) == failed, "an unknown key")
        let mixed = try signer.headers(body: Self.read, path: lookup)
        let token = "ckAPIToken=\(signer.fixture.apiToken)"
        #expect(try await signer.send(Self.read, lookup, mixed, query: token) == failed, "with an API token")
    }

    /// A server key answers for itself: users/caller names it `_server_<key ID>`, and the
    /// subscriptions it saves in the public database are its own, not any user's.
    @Test func aServerKeysSubscriptionsAreItsOwn() async throws {
        let signer = try Signer()
        let caller = signer.path("users/caller")
        let named = try await signer.fixture.raw(
            "POST", String(caller.dropFirst()), body: Data("{}".utf8), as: .none,
            headers: try signer.headers(body: "{}", path: caller))
        let name = (try? JSONSerialization.jsonObject(with: named.body)) as? [String: Any]
        #expect(named.status == 200 && name?["userRecordName"] as? String == "_server_" + signer.keyID)
        let modify = signer.path("subscriptions/modify")
        let save =
            #"{"operations": [{"operationType": "create", "subscription": {"subscriptionID": "by-key", "#
            + #""subscriptionType": "query", "query": {"recordType": "Note"}}}]}"#
        #expect(try await signer.send(save, modify, try signer.headers(body: save, path: modify)) == (200, nil))
        let list = signer.path("subscriptions/list")
        let own = try await signer.fixture.raw(
            "POST", String(list.dropFirst()), body: Data("{}".utf8), as: .none,
            headers: try signer.headers(body: "{}", path: list))
        #expect(String(decoding: own.body, as: UTF8.self).contains(#""by-key""#), "the key lists its subscription")
        let alices = try await signer.fixture.raw("POST", String(list.dropFirst()), body: nil, as: .alice)
        #expect(alices.status == 200)
        #expect(!String(decoding: alices.body, as: UTF8.self).contains("by-key"), "alice does not see the key's")
    }

    @Test func aSignedRequestReachesEveryEndpointOfThePublicDatabaseOnly() async throws {
        let signer = try Signer()
        for database in ["public", "private", "shared"] {
            for endpoint in AuthMatrixTests.endpoints {
                let path = signer.path(endpoint.operation, database)
                let body = endpoint.body() ?? ""
                let answer = try await signer.fixture.raw(
                    endpoint.method, String(path.dropFirst()), body: endpoint.body().map { _ in Data(body.utf8) },
                    as: .none, headers: try signer.headers(body: body, path: path))
                let json = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
                let actual = AuthMatrixTests.Expected(
                    status: answer.status, code: answer.status == 200 ? nil : json["serverErrorCode"] as? String)
                let expected = database == "public" ? AuthMatrixTests.publicRead(endpoint) : .denied
                #expect(
                    actual == expected,
                    "S2S \(endpoint) in \(database) → \(actual): \(String(decoding: answer.body, as: UTF8.self))")
            }
        }
    }
}
