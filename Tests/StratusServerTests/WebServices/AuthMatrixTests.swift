import Foundation
import StratusTestSupport
import Testing

/// Decision 0013's auth matrix over every served endpoint of a live `stratusd`: each kind of
/// credential → the documented status and `serverErrorCode`.
@Suite("Web Services: the auth matrix", .serialized)
struct AuthMatrixTests {
    /// One served endpoint with a valid body.
    struct Endpoint: Sendable, CustomStringConvertible {
        var method = "POST"
        var operation: String
        var body: @Sendable () -> String?
        var writes = false
        /// Whether it needs someone to answer for (subscriptions): a user, or a server key.
        var needsUser = false
        var description: String { "\(method) \(operation)" }
    }

    static let endpoints: [Endpoint] = [
        Endpoint(
            operation: "records/modify",
            body: {
                #"{"operations": [{"operationType": "forceUpdate", "record": {"recordName": "m-\#(UUID())", "#
                    + #""recordType": "Note"}}]}"#
            }, writes: true),
        Endpoint(operation: "records/lookup", body: { #"{"records": [{"recordName": "x"}]}"# }),
        Endpoint(operation: "records/changes", body: { #"{"zoneID": {"zoneName": "Matrix"}}"# }),
        Endpoint(operation: "changes/zone", body: { #"{"zones": [{"zoneID": {"zoneName": "Matrix"}}]}"# }),
        Endpoint(operation: "changes/database", body: { "{}" }),
        Endpoint(operation: "zones/changes", body: { "{}" }),
        Endpoint(method: "GET", operation: "zones/list", body: { nil }),
        Endpoint(operation: "zones/list", body: { "{}" }),
        Endpoint(operation: "zones/lookup", body: { #"{"zones": [{"zoneID": {"zoneName": "_defaultZone"}}]}"# }),
        Endpoint(
            operation: "zones/modify",
            body: {
                #"{"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "z\#(UUID())"}}}]}"#
            },
            writes: true),
        Endpoint(operation: "records/query", body: { #"{"query": {"recordType": "Note"}, "zoneWide": true}"# }),
        Endpoint(method: "GET", operation: "users/caller", body: { nil }),
        Endpoint(operation: "users/current", body: { "{}" }),
        Endpoint(method: "GET", operation: "subscriptions/list", body: { nil }, needsUser: true),
        Endpoint(
            operation: "subscriptions/lookup", body: { #"{"subscriptions": [{"subscriptionID": "x"}]}"# },
            needsUser: true),
        Endpoint(
            operation: "subscriptions/modify",
            body: {
                #"{"operations": [{"operationType": "create", "subscription": {"subscriptionID": "s-\#(UUID())", "#
                    + #""subscriptionType": "query", "query": {"recordType": "Note"}}}]}"#
            }, writes: true, needsUser: true),
        Endpoint(
            operation: "assets/upload", body: { #"{"tokens": [{"recordType": "Note", "fieldName": "file"}]}"# },
            writes: true),
    ]

    /// What a request should get: a status and, for a refusal, its `serverErrorCode`.
    struct Expected: Equatable, CustomStringConvertible {
        var status: Int
        var code: String?
        static let ok = Expected(status: 200, code: nil)
        static let failed = Expected(status: 401, code: "AUTHENTICATION_FAILED")
        static let required = Expected(status: 421, code: "AUTHENTICATION_REQUIRED")
        static let denied = Expected(status: 403, code: "ACCESS_DENIED")
        var description: String { "\(status) \(code ?? "")" }
    }

    /// The setting: the fixture's container and users, plus a revoked token, a production token,
    /// and container B's token.
    final class Setting: Sendable {
        let fixture: WebServicesFixture
        let revokedToken: String
        let productionToken: String
        let otherContainerToken: String

        init() throws {
            fixture = try WebServicesFixture()
            let container = WebServicesFixture.container
            let made = try runAdmin(
                ["token", "create", "--container", container, "--environment", "development"], in: fixture.directory)
            revokedToken = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
            // Standard error: "API token <id> for …".
            let id = made.errors.split(separator: " ").dropFirst(2).first.map(String.init) ?? ""
            _ = try fixture.admin(["token", "revoke", "--container", container, id])
            productionToken = try fixture.admin(
                ["token", "create", "--container", container, "--environment", "production"])
            _ = try fixture.admin(["container", "create", "iCloud.com.example.other"])
            otherContainerToken = try fixture.admin(
                ["token", "create", "--container", "iCloud.com.example.other", "--environment", "development"])
        }
    }

    /// Every endpoint in `databases` with `credentials` → `expected(endpoint, database)`.
    private func expectAll(
        _ setting: Setting, _ credentials: WebServicesFixture.Credentials, environment: String = "development",
        databases: [String] = ["public", "private", "shared"], _ row: String,
        expected: (Endpoint, String) -> Expected
    ) async throws {
        for database in databases {
            for endpoint in Self.endpoints {
                let path = "database/1/\(WebServicesFixture.container)/\(environment)/\(database)/\(endpoint.operation)"
                let answer = try await setting.fixture.raw(
                    endpoint.method, path, body: endpoint.body().map { Data($0.utf8) }, as: credentials)
                let json = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
                let actual = Expected(
                    status: answer.status, code: answer.status == 200 ? nil : json["serverErrorCode"] as? String)
                let want = expected(endpoint, database)
                #expect(
                    actual == want,
                    "\(row): \(endpoint) in \(database) → \(actual), expected \(want): \(String(decoding: answer.body, as: UTF8.self))"
                )
            }
        }
    }

    @Test func credentialsThatFailAreRefusedEverywhere() async throws {
        let setting = try Setting()
        let fixture = setting.fixture
        try await expectAll(setting, .none, "none") { _, _ in .failed }
        try await expectAll(setting, .raw("ckAPIToken=" + String(repeating: "ab", count: 32)), "unknown token") {
            _, _ in
            .failed
        }
        try await expectAll(setting, .raw("ckAPIToken=\(setting.revokedToken)"), "revoked token") { _, _ in .failed }
        try await expectAll(setting, .anonymous, environment: "production", "development token on production") {
            _, _ in .failed
        }
        try await expectAll(
            setting, .raw("ckAPIToken=\(setting.productionToken)&ckWebAuthToken=\(fixture.aliceSession)"),
            "production token on development"
        ) { _, _ in .failed }
        try await expectAll(setting, .raw("ckAPIToken=\(setting.otherContainerToken)"), "container B's token on A") {
            _, _ in .failed
        }
    }

    @Test func anAPITokenAloneReadsThePublicDatabaseOnly() async throws {
        let setting = try Setting()
        // A public record of the type records/query asks for, so an anonymous query can answer 200.
        let note =
            #"{"operations": [{"operationType": "create", "record": {"recordName": "n", "recordType": "Note"}}]}"#
        #expect(try await setting.fixture.post("records/modify", try json(note), as: .alice).status == 200)
        try await expectAll(setting, .anonymous, databases: ["public"], "API token only, public") { endpoint, _ in
            endpoint.writes || endpoint.needsUser ? .required : Self.publicRead(endpoint)
        }
        try await expectAll(setting, .anonymous, databases: ["private", "shared"], "API token only") { _, _ in
            .required
        }
    }

    @Test func aBogusSessionIsRefusedEverywhere() async throws {
        let setting = try Setting()
        let bogus = String(repeating: "A", count: 43)
        try await expectAll(
            setting, .raw("ckAPIToken=\(setting.fixture.apiToken)&ckWebAuthToken=\(bogus)"), "token + bogus session"
        ) { _, _ in .required }
        try await expectAll(
            setting, .raw("ckAPIToken=\(setting.productionToken)&ckWebAuthToken=\(setting.fixture.aliceSession)"),
            environment: "production", "production token + development session"
        ) { _, _ in .required }
    }

    @Test func aUserReachesEveryEndpoint() async throws {
        let setting = try Setting()
        let zone = #"{"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Matrix"}}}]}"#
        let made = try await setting.fixture.post(
            "zones/modify", try json(zone), database: "private", as: .alice)
        #expect(made.status == 200, "\(made.json)")
        try await expectAll(setting, .alice, databases: ["private"], "user A, private") { _, _ in .ok }
        try await expectAll(setting, .alice, databases: ["shared"], "user A, shared") { endpoint, _ in
            Self.sharedDatabase(endpoint)
        }
        try await expectAll(setting, .alice, databases: ["public"], "user A, public") { endpoint, _ in
            endpoint.operation == "zones/modify" ? .ok : Self.publicRead(endpoint)
        }
    }

    /// The answer to a read in the public database: 200, except the change feeds of one zone or
    /// of the database, which the engine does not keep for the public database (400
    /// `BAD_REQUEST`, `badDatabase`); `changes/zone` answers that per zone, in a 200.
    static func publicRead(_ endpoint: Endpoint) -> Expected {
        ["records/changes", "changes/database", "zones/changes"].contains(endpoint.operation)
            ? Expected(status: 400, code: "BAD_REQUEST") : .ok
    }

    /// A user's answer in their shared database: 200, except one zone's changes, since nobody
    /// shared the zone `Matrix` with them (404 `ZONE_NOT_FOUND`, not an auth refusal), and a
    /// query over every zone, which the shared database does not take (400 `BAD_REQUEST`: it
    /// needs a zone ID).
    static func sharedDatabase(_ endpoint: Endpoint) -> Expected {
        switch endpoint.operation {
        case "records/changes": return Expected(status: 404, code: "ZONE_NOT_FOUND")
        case "records/query": return Expected(status: 400, code: "BAD_REQUEST")
        default: return .ok
        }
    }

    @Test func aUserCannotChangeAnotherUsersPublicRecord() async throws {
        let setting = try Setting()
        let fixture = setting.fixture
        let create =
            #"{"operations": [{"operationType": "create", "record": {"recordName": "owned", "recordType": "Note"}}]}"#
        let made = try await fixture.post("records/modify", try json(create), as: .alice)
        #expect(made.status == 200 && made.records.first?["recordChangeTag"] != nil, "\(made.json)")
        let update =
            #"{"operations": [{"operationType": "forceUpdate", "record": {"recordName": "owned", "recordType": "Note"}}]}"#
        let refused = try await fixture.post("records/modify", try json(update), as: .bob)
        #expect(refused.status == 200)
        #expect(refused.records.first?["serverErrorCode"] as? String == "ACCESS_DENIED", "\(refused.json)")
        let own = try await fixture.post("records/modify", try json(update), as: .alice)
        #expect(own.records.first?["serverErrorCode"] == nil, "\(own.json)")
    }

    /// `tokens/create` (no `{database}` segment): a courier token is a signed-in user's, so an API
    /// token alone is 421 and a server key 403; failed credentials are 401 as everywhere.
    @Test func tokensCreateIsForAUserOnly() async throws {
        let setting = try Setting()
        let fixture = setting.fixture
        let path = "database/1/\(WebServicesFixture.container)/development/tokens/create"
        let body = Data(#"{"apnsEnvironment": "development"}"#.utf8)
        for (credentials, row, want) in [
            (WebServicesFixture.Credentials.alice, "user A", Expected.ok), (.anonymous, "API token only", .required),
            (.none, "none", .failed), (.raw("ckAPIToken=\(setting.revokedToken)"), "revoked token", .failed),
            (
                .raw("ckAPIToken=\(fixture.apiToken)&ckWebAuthToken=\(String(repeating: "A", count: 43))"),
                "token + bogus session", .required
            ),
        ] {
            let answer = try await fixture.raw("POST", path, body: body, as: credentials)
            let json = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
            let actual = Expected(
                status: answer.status, code: answer.status == 200 ? nil : json["serverErrorCode"] as? String)
            #expect(actual == want, "\(row): tokens/create → \(actual), expected \(want): \(json)")
            if answer.status == 200 {
                #expect((json["webcourierURL"] as? String)?.contains("/notifications/1/") == true, "\(json)")
            }
        }
        let key = try fixture.addServerKey()
        let signed = try await fixture.signedPost("/" + path, body: body, key: key)
        #expect(signed.status == 403 && signed.json["serverErrorCode"] as? String == "ACCESS_DENIED", "\(signed.json)")
        // A server key may still ask for upload URLs in the public database.
        let upload = try await fixture.signedPost(
            "/database/1/\(WebServicesFixture.container)/development/public/assets/upload",
            body: Data(#"{"tokens": [{"recordType": "Note", "fieldName": "file"}]}"#.utf8), key: key)
        #expect(upload.status == 200 && (upload.json["tokens"] as? [Any])?.count == 1, "\(upload.json)")
    }

    private func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }
}

extension WebServicesFixture {
    /// `stratusd admin arguments…` on this fixture's store (the server keeps running), its
    /// standard output trimmed; fails the test when it fails.
    func admin(_ arguments: [String]) throws -> String {
        let run = try runAdmin(arguments + backendArguments, in: directory)
        guard run.status == 0 else { throw StratusDaemonProcess.StartFailure(description: run.errors) }
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

}
