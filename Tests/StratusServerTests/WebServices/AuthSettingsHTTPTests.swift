import Crypto
import Foundation
import StratusServer
import StratusTestSupport
import Testing

/// The `auth…` settings (decision 0013) through a real `stratusd`: each set by its
/// `STRATUS_AUTH_…` variable (or the configuration file), and a server with the defaults where
/// the difference shows.
@Suite("stratusd: auth settings")
struct AuthSettingsHTTPTests {
    static let lookupPath = "/database/1/\(WebServicesFixture.container)/development/public/records/lookup"
    static let lookup = Data(#"{"records": [{"recordName": "nothing"}]}"#.utf8)
    static var write: [String: Any] {
        ["operations": [["operationType": "create", "record": ["recordName": "n", "recordType": "Note"]]]]
    }

    @Test func a421NamesTheSignInURLOnlyWhenOneIsConfigured() async throws {
        let url = "https://example.com/sign-in"
        let ws = try WebServicesFixture(environment: ["STRATUS_AUTH_SIGN_IN_URL": url])
        let write = try await ws.post("records/modify", Self.write, as: .anonymous)
        #expect(write.status == 421 && write.json["redirectURL"] as? String == url, "\(write.json)")
        let privateRead = try await ws.post("zones/list", [:], database: "private", as: .anonymous)
        #expect(privateRead.status == 421 && privateRead.json["redirectURL"] as? String == url)
        let courier = try await ws.createCourier(as: .anonymous)
        #expect(courier.status == 421 && courier.json["redirectURL"] as? String == url, "\(courier.json)")
        let refused = try await ws.post("records/modify", Self.write, as: .none)
        #expect(refused.status == 401 && refused.json["redirectURL"] == nil, "only a 421 names it")

        let plain = try WebServicesFixture()
        let unconfigured = try await plain.post("records/modify", Self.write, as: .anonymous)
        #expect(unconfigured.status == 421 && unconfigured.json["redirectURL"] == nil, "\(unconfigured.json)")
    }

    /// Sessions made without a lifetime expire `authSessionTtlSeconds` (20) after they are
    /// made, over HTTP and through `stratusd admin`; the expiry is judged from the `expires`
    /// each answer gives (bounded by when the request was sent and answered, so a loaded
    /// machine does not fail it), then by using the sessions once it has passed.
    @Test func sessionsAskedWithoutALifetimeLiveAuthSessionTtlSeconds() async throws {
        let ttl = 20.0
        let ws = try WebServicesFixture(environment: ["STRATUS_AUTH_SESSION_TTL_SECONDS": "20"])
        let key = try ws.addServerKey()
        let create = "/auth/1/\(WebServicesFixture.container)/development/sessions/create"
        var sent = Date()
        let made = try await ws.signedPost(create, body: Data(#"{"userID": "carol"}"#.utf8), key: key)
        #expect(made.status == 200, "\(made.json)")
        let overHTTP = try #require(made.json["ckWebAuthToken"] as? String)
        let milliseconds = try #require((made.json["expires"] as? NSNumber)?.doubleValue)
        let httpExpiry = Date(timeIntervalSince1970: milliseconds / 1000)
        Self.expectExpiry(httpExpiry, between: sent, and: Date(), ttl: ttl)
        // `stratusd admin session create` reads the same key, here from the configuration file.
        try Data(#"{"authSessionTtlSeconds": 20}"#.utf8).write(to: ws.directory.appending("stratus.json"))
        sent = Date()
        let admin = try runAdmin(
            [
                "session", "create", "--container", WebServicesFixture.container, "--environment", "development",
                "--user", "dave",
            ], in: ws.directory)
        #expect(admin.status == 0, "\(admin.errors)")
        let adminExpiry = try #require(Self.expiry(inNote: admin.errors), "\(admin.errors)")
        Self.expectExpiry(adminExpiry, between: sent, and: Date(), ttl: ttl)
        let byAdmin = admin.output.trimmingCharacters(in: .whitespacesAndNewlines)

        let sessions = [(overHTTP, httpExpiry), (byAdmin, adminExpiry)].map { session, expiry in
            (WebServicesFixture.Credentials.raw("ckAPIToken=\(ws.apiToken)&ckWebAuthToken=\(session)"), expiry)
        }
        for (session, expiry) in sessions where Date() < expiry.addingTimeInterval(-5) {
            #expect(try await ws.post("zones/list", [:], database: "private", as: session).status == 200)
        }
        let last = max(httpExpiry, adminExpiry)
        try await Task.sleep(for: .seconds(max(0, last.timeIntervalSinceNow) + 1.5))
        for (session, _) in sessions {
            let expired = try await ws.post("zones/list", [:], database: "private", as: session)
            #expect(expired.status == 421, "expired: \(expired.json)")
        }
        let alice = try await ws.post("zones/list", [:], database: "private", as: .alice)
        #expect(alice.status == 200, "a session made with the default (30 days) lives on")
    }

    /// Expects `expiry` to lie `ttl` after a moment between `sent` and `answered` (1 s of slack
    /// for whole seconds and milliseconds).
    static func expectExpiry(
        _ expiry: Date, between sent: Date, and answered: Date, ttl: TimeInterval,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let earliest = sent.addingTimeInterval(ttl - 1)
        let latest = answered.addingTimeInterval(ttl + 1)
        #expect(
            earliest <= expiry && expiry <= latest, "expires \(expiry), expected \(earliest)…\(latest)",
            sourceLocation: sourceLocation)
    }

    /// The date after "expires " in `stratusd admin session create`'s note.
    static func expiry(inNote note: String) -> Date? {
        guard let range = note.range(of: "expires ") else { return nil }
        let word = note[range.upperBound...].prefix { !$0.isWhitespace && $0 != ";" }
        return try? Date.ISO8601FormatStyle().parse(String(word))
    }

    @Test func theSignedRequestWindowIsAuthS2sMaxAgeSeconds() async throws {
        // 90 s old: outside a 60 s window, well inside the default 300 s however slow the machine.
        let narrow = try WebServicesFixture(environment: ["STRATUS_AUTH_S2S_MAX_AGE_SECONDS": "60"])
        let key = try narrow.addServerKey()
        let old = Date().addingTimeInterval(-90)
        let refused = try await narrow.signedPost(Self.lookupPath, body: Self.lookup, key: key, date: old)
        #expect(refused.status == 401, "\(refused.json)")
        #expect((refused.json["reason"] as? String)?.contains("more than 60 s old") == true, "\(refused.json)")
        let fresh = try await narrow.signedPost(Self.lookupPath, body: Self.lookup, key: key)
        #expect(fresh.status == 200, "\(fresh.json)")

        let standard = try WebServicesFixture()
        let standardKey = try standard.addServerKey()
        let accepted = try await standard.signedPost(
            Self.lookupPath, body: Self.lookup, key: standardKey, date: Date().addingTimeInterval(-90))
        #expect(accepted.status == 200, "the default 300 s takes a 90 s old date: \(accepted.json)")
    }

    @Test func theMemoryReplayGuardRefusesAReplayAndWritesNothingToTheStore() async throws {
        let memory = try WebServicesFixture(environment: ["STRATUS_AUTH_REPLAY_GUARD": "memory"])
        #expect(try await Self.replayCount(memory) == 0, "the memory guard writes nothing to the store")
        #expect(memory.serverLog.contains("replay guard of signed requests is kept in memory"))
        let stored = try WebServicesFixture()
        #expect(try await Self.replayCount(stored) == 1, "the default guard, for comparison, does")
    }

    /// Sends one signed lookup twice (the second is refused as a replay) and answers how many
    /// entries the store's replay guard holds afterwards.
    static func replayCount(_ ws: WebServicesFixture) async throws -> Int {
        let key = try ws.addServerKey()
        let headers = try signedHeaders(body: lookup, path: lookupPath, key: key)
        let first = try await ws.raw("POST", String(lookupPath.dropFirst()), body: lookup, as: .none, headers: headers)
        #expect(first.status == 200, "\(first.json)")
        let replay = try await ws.raw("POST", String(lookupPath.dropFirst()), body: lookup, as: .none, headers: headers)
        #expect(replay.status == 401, "\(replay.json)")
        #expect((replay.json["reason"] as? String)?.contains("replay") == true, "\(replay.json)")
        return try ws.withStore { engine in try AuthStore(engine: engine).replayGuardEntryCount() }
    }

    /// The three headers of a request of `body` to `path` signed by `key` now.
    static func signedHeaders(body: Data, path: String, key: WebServicesFixture.ServerKey) throws -> [String: String] {
        let date = Date().formatted(.iso8601)
        let message = "\(date):\(Data(SHA256.hash(data: body)).base64EncodedString()):\(path)"
        return [
            "X-Apple-CloudKit-Request-KeyID": key.keyID, "X-Apple-CloudKit-Request-ISO8601Date": date,
            "X-Apple-CloudKit-Request-SignatureV1": try key.privateKey.signature(for: Data(message.utf8))
                .derRepresentation.base64EncodedString(),
        ]
    }

    @Test func aBadValueStopsTheStartNamingTheKeyAndTheRange() throws {
        let run = try CommandRun.stratusd([], environment: ["STRATUS_AUTH_S2S_MAX_AGE_SECONDS": "900"])
        #expect(run.status != nil && run.status != 0)
        #expect(
            run.standardError.contains(
                "'authS2sMaxAgeSeconds' must be a number of seconds from 1 to 600, got 900 "
                    + "(from environment variable STRATUS_AUTH_S2S_MAX_AGE_SECONDS)"), "\(run.standardError)")
        let guardKind = try CommandRun.stratusd([], environment: ["STRATUS_AUTH_REPLAY_GUARD": "shared"])
        #expect(guardKind.status != nil && guardKind.status != 0)
        #expect(guardKind.standardError.contains("'authReplayGuard' must be backend or memory, got 'shared'"))
    }
}
