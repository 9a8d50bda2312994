import Foundation
import StratusTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `stratusd` with a container, an API token and sessions for two users, made by
/// `stratusd admin` in the server's store before it starts: the setting of every Web Services
/// test. `backend` is a backend URL (a private PostgreSQL's) or `nil` for the embedded SQLite
/// default in the server's directory.
final class WebServicesFixture: Sendable {
    static let container = "iCloud.com.example.stratus"
    let directory: TemporaryDirectory
    let server: StratusDaemonProcess
    /// The development API token.
    let apiToken: String
    /// Sessions of users `alice` and `bob` (development).
    let aliceSession: String
    let bobSession: String
    private let postgres: PostgreSQLPrivateServer?
    /// `["--backend", url]` for the private PostgreSQL, `[]` for the default SQLite store: how
    /// a second `stratusd` opens the same store.
    let backendArguments: [String]

    /// `environment` is added to the server's (such as `STRATUS_SERVER_MAX_ASSET_BYTES`);
    /// `serverArguments` go to its command line (after the backend's).
    init(postgres: Bool = false, environment: [String: String] = [:], serverArguments: [String] = []) throws {
        let directory = try TemporaryDirectory(prefix: "stratusd-ws")
        self.directory = directory
        let database = postgres ? try PostgreSQLPrivateServer() : nil
        self.postgres = database
        let backend = database.map { ["--backend", $0.url.description] } ?? []
        backendArguments = backend
        let made = try provisionStratusd(
            container: Self.container, users: ["alice", "bob"], in: directory, backendArguments: backend)
        (apiToken, aliceSession, bobSession) = (made.apiToken, made.sessions[0], made.sessions[1])
        server = try StratusDaemonProcess(
            arguments: backend + serverArguments, environment: environment, directory: directory)
    }

    deinit {
        server.stop()
        postgres?.stop()
        try? directory.remove()
    }

    /// The private PostgreSQL server, when there is one (a fault test halts and resumes it; a
    /// second `stratusd` started with ``backendArguments`` in ``directory`` serves the same store).
    var postgresServer: PostgreSQLPrivateServer? { postgres }

    /// Who sends a request.
    enum Credentials {
        case none, anonymous, alice, bob
        case raw(String)
    }

    /// An answer: status and JSON object (empty when the body was not one).
    struct Answer {
        var status: Int
        var json: [String: Any]
        var records: [[String: Any]] { json["records"] as? [[String: Any]] ?? [] }
    }

    /// `POST /database/1/{container}/development/{database}/{operation}` with `body`, to
    /// `baseURL` (another `stratusd` on the same store) or else this fixture's server.
    func post(
        _ operation: String, _ body: Any, database: String = "public", as credentials: Credentials = .alice,
        environment: String = "development", at baseURL: URL? = nil
    ) async throws -> Answer {
        try await send(
            "POST", "database/1/\(Self.container)/\(environment)/\(database)/\(operation)",
            body: try JSONSerialization.data(withJSONObject: body), as: credentials, at: baseURL)
    }

    /// An answer as bytes: status, body and `Content-Type`.
    struct RawAnswer: Sendable {
        var status: Int
        var body: Data
        var contentType: String?
        /// The `Content-Length` header: absent from an answer sent in pieces (chunked).
        var contentLength: String? = nil
        /// The body as a JSON object (empty when it is not one).
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    /// Any request to `path` (below `baseURL`, else the server's URL) with raw `body` bytes.
    func send(_ method: String, _ path: String, body: Data?, as credentials: Credentials, at baseURL: URL? = nil)
        async throws -> Answer
    {
        let answer = try await raw(method, path, body: body, as: credentials, at: baseURL)
        return Answer(status: answer.status, json: answer.json)
    }

    /// Any request to `path` (below `baseURL`, else the server's URL), answered as bytes.
    func raw(
        _ method: String, _ path: String, body: Data?, as credentials: Credentials, at baseURL: URL? = nil,
        headers: [String: String] = [:]
    ) async throws -> RawAnswer {
        var url = (baseURL ?? server.baseURL).absoluteString + "/" + path
        switch credentials {
        case .none: break
        case .anonymous: url += "?ckAPIToken=\(apiToken)"
        case .alice: url += "?ckAPIToken=\(apiToken)&ckWebAuthToken=\(aliceSession)"
        case .bob: url += "?ckAPIToken=\(apiToken)&ckWebAuthToken=\(bobSession)"
        case .raw(let query): url += "?" + query
        }
        return try await request(method, url: url, body: body, headers: headers)
    }

    /// `method` to an absolute `url` (an upload or download URL too) with `body` and `headers`.
    func request(_ method: String, url: String, body: Data? = nil, headers: [String: String] = [:]) async throws
        -> RawAnswer
    {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        // A hung request fails the test instead of holding it: no answer takes this long.
        request.timeoutInterval = 60
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return RawAnswer(
            status: http?.statusCode ?? -1, body: data, contentType: http?.value(forHTTPHeaderField: "Content-Type"),
            contentLength: http?.value(forHTTPHeaderField: "Content-Length"))
    }
}
