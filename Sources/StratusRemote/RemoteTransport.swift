import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Stratus
import StratusWebServices
import Synchronization

/// One remote container's HTTP: the URLs of its requests, their credentials, and one blocking
/// round trip at a time over a process-wide `HTTPClient` (connection pool, keep-alive).
///
/// Operations call the engine seam from their own threads (an `OperationQueue`'s, never an
/// event loop's or the concurrency pool's), so a call waits for its answer there, as a local
/// engine's read would.
final class RemoteTransport: Sendable {
    let server: RemoteServer
    let containerIdentifier: String
    let client: HTTPClient
    /// Whether the server accepts the binary record encoding (decision 0018): learned from any
    /// answer's `Accept-Post`, shared with this transport's bounded copies.
    let recordEncoding: Atomic<Bool>

    convenience init(server: RemoteServer, containerIdentifier: String) {
        self.init(server: server, containerIdentifier: containerIdentifier, recordEncoding: false)
    }

    private init(server: RemoteServer, containerIdentifier: String, recordEncoding: Bool) {
        self.server = server
        self.containerIdentifier = containerIdentifier
        self.client = RemoteClients.client(
            connectTimeout: server.connectTimeout, trustedCertificatesFile: server.trustedCertificatesFile)
        self.recordEncoding = Atomic(recordEncoding)
    }

    /// Whether requests may be sent in the binary record encoding.
    var sendsRecordEncoding: Bool { recordEncoding.load(ordering: .relaxed) }

    /// This transport with requests bounded by `timeout` instead of the server's
    /// `requestTimeout`, when `timeout` is shorter; itself otherwise.
    func bounded(by timeout: Duration) -> RemoteTransport {
        guard timeout > .zero, timeout < server.requestTimeout else { return self }
        var server = self.server
        server.requestTimeout = timeout
        return RemoteTransport(
            server: server, containerIdentifier: containerIdentifier, recordEncoding: sendsRecordEncoding)
    }

    /// `POST`s `body` to `/database/1/{container}/{environment}/{scope}/{operation}`, retrying
    /// by `retry`, and answers the JSON of a 200.
    ///
    /// - Throws: the `CKError` of the server's error dictionary, or of the transport failure.
    func post(
        _ scope: CKDatabase.Scope, _ operation: String, _ body: JSONValue, headers: [(String, String)] = [],
        retry: RemoteRetry = .idempotent
    ) throws(CKError) -> JSONValue {
        let path = databasePath(scope, operation)
        let bytes = body.serialized()
        return try retry.run { () throws(CKError) -> JSONValue in
            try self.exchange(.POST, path: path, query: [], body: bytes, headers: headers, wait: 0).json(path)
        }
    }

    /// `POST`s `body` — the binary record encoding when `binary`, JSON otherwise — asking for an
    /// answer in the binary record encoding (decision 0018), which a server answers when it can
    /// and JSON otherwise.
    func postRecords(
        _ scope: CKDatabase.Scope, _ operation: String, _ body: [UInt8], binary: Bool,
        headers: [(String, String)] = [], retry: RemoteRetry = .idempotent
    ) throws(CKError) -> RemoteAnswer {
        let path = databasePath(scope, operation)
        var all = headers + [("Accept", "\(StratusRecordEncoding.mediaType), application/json")]
        if binary { all.append(("Content-Type", StratusRecordEncoding.mediaType)) }
        return try retry.run { () throws(CKError) -> RemoteAnswer in
            try self.exchange(.POST, path: path, query: [], body: body, headers: all, wait: 0)
        }
    }

    /// `GET`s `/database/1/{container}/{environment}/{scope}/{operation}` with `query`, waiting
    /// `wait` seconds longer than the request timeout (a long-poll), retrying by `retry`.
    func get(
        _ scope: CKDatabase.Scope, _ operation: String, query: [(String, String)] = [], wait: Double = 0,
        retry: RemoteRetry = .idempotent
    ) throws(CKError) -> JSONValue {
        let path = databasePath(scope, operation)
        return try retry.run { () throws(CKError) -> JSONValue in
            try self.exchange(.GET, path: path, query: query, body: nil, headers: [], wait: wait).json(path)
        }
    }

    /// The path of `operation` in the database of `scope`.
    private func databasePath(_ scope: CKDatabase.Scope, _ operation: String) -> String {
        "database/1/\(containerIdentifier)/\(server.environment.rawValue)/\(scope.pathName)/\(operation)"
    }

    /// One request and its answer: its JSON, or the bytes of a 200 in the binary record encoding.
    private func exchange(
        _ method: HTTPMethod, path: String, query: [(String, String)], body: [UInt8]?, headers: [(String, String)],
        wait: Double
    ) throws(CKError) -> RemoteAnswer {
        try interpret(send(method, path: path, query: query, body: body, headers: headers, wait: wait), path: path)
    }

    /// What a received answer says: its JSON or binary body for a 200, its error otherwise.
    private func interpret(_ answer: Received, path: String) throws(CKError) -> RemoteAnswer {
        if answer.status == 200, StratusRecordEncoding.isNamed(in: answer.contentType) {
            return .binary(answer.body)
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(answer.body)
        } catch {
            if answer.status == 200 {
                throw RemoteFailure.error(.serverResponseLost, "the server's answer to \(path) is not JSON: \(error)")
            }
            throw RemoteFailure.status(answer.status, path: path, retryAfter: answer.retryAfter)
        }
        guard answer.status == 200 else {
            throw WSErrorReader.error(from: json, status: answer.status, translator: WSRecordTranslator())
        }
        return .json(json)
    }

    /// An answer as received: the status, the body bytes, the seconds of a `Retry-After` header
    /// (an HTTP date there is not read) and the `Content-Type`.
    typealias Received = (status: Int, body: [UInt8], retryAfter: Double?, contentType: String?)

    /// One HTTP exchange.
    private func send(
        _ method: HTTPMethod, path: String, query: [(String, String)], body: [UInt8]?, headers: [(String, String)],
        wait: Double
    ) throws(CKError) -> Received {
        do {
            let request = try request(method, path: path, query: query, body: body, headers: headers)
            let timeout = server.requestTimeout.nanoseconds + Int64(wait * 1_000_000_000)
            let deadline = NIODeadline.now() + .nanoseconds(timeout)
            return received(try client.execute(request: request, deadline: deadline).wait())
        } catch {
            throw RemoteFailure.transport(error, path: path)
        }
    }

    /// `response` as received, learning from its `Accept-Post` whether the server reads the
    /// binary record encoding.
    private func received(_ response: HTTPClient.Response) -> Received {
        let bytes = response.body.map { Array($0.readableBytesView) } ?? []
        let retryAfter = response.headers.first(name: "Retry-After").flatMap(Double.init)
        if StratusRecordEncoding.isNamed(in: response.headers.first(name: "Accept-Post")) {
            recordEncoding.store(true, ordering: .relaxed)
        }
        return (Int(response.status.code), bytes, retryAfter, response.headers.first(name: "Content-Type"))
    }

    /// `POST`s `body` to `operation` as ``postRecords(_:_:_:binary:headers:retry:)`` does, without
    /// waiting for the answer (a page asked for ahead, ``RemoteChangesPipeline``); `nil` when
    /// the request cannot be made.
    func startPostRecords(_ scope: CKDatabase.Scope, _ operation: String, _ body: [UInt8])
        -> EventLoopFuture<HTTPClient.Response>?
    {
        let path = databasePath(scope, operation)
        let accept = [("Accept", "\(StratusRecordEncoding.mediaType), application/json")]
        guard let request = try? request(.POST, path: path, query: [], body: body, headers: accept) else { return nil }
        return client.execute(
            request: request, deadline: NIODeadline.now() + .nanoseconds(server.requestTimeout.nanoseconds))
    }

    /// The answer of a request ``startPostRecords(_:_:_:)`` made; `nil` when it failed in any
    /// way (it is then asked for again, with the usual retries).
    func finishPostRecords(
        _ response: EventLoopFuture<HTTPClient.Response>, _ scope: CKDatabase.Scope, _ operation: String
    )
        -> RemoteAnswer?
    {
        guard let response = try? response.wait() else { return nil }
        return try? interpret(received(response), path: databasePath(scope, operation))
    }

    /// The request of one exchange: its URL, headers, signature and body.
    private func request(
        _ method: HTTPMethod, path: String, query: [(String, String)], body: [UInt8]?, headers: [(String, String)]
    ) throws -> HTTPClient.Request {
        do {
            let address = url(path, query)
            var request = try HTTPClient.Request(url: address, method: method)
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            if case .serverToServer(let keyID, let key) = server.credentials {
                let rawPath = URLComponents(string: address)?.percentEncodedPath ?? "/" + path
                let signed = try RemoteSigner.headers(keyID: keyID, privateKey: key, path: rawPath, body: body)
                for (name, value) in signed { request.headers.add(name: name, value: value) }
            }
            if let body {
                if !headers.contains(where: { $0.0 == "Content-Type" }) {
                    request.headers.add(name: "Content-Type", value: "application/json")
                }
                request.body = .bytes(body)
            }
            return request
        }
    }

    /// The absolute URL of `path`, with `query` and the credentials' query items (none for a
    /// server-to-server key, whose requests are signed instead).
    private func url(_ path: String, _ query: [(String, String)]) -> String {
        var components = URLComponents()
        components.queryItems = (query + server.credentials.queryItems).map { URLQueryItem(name: $0.0, value: $0.1) }
        let base =
            server.url.absoluteString.hasSuffix("/") ? server.url.absoluteString : server.url.absoluteString + "/"
        // `+` is legal in a query but read as a space by some servers: encode it too.
        let encoded = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B") ?? ""
        // A signed request carries no query string at all, not even an empty one.
        return encoded.isEmpty ? base + path : base + path + "?" + encoded
    }
}

extension CKDatabase.Scope {
    /// The scope's name in a Web Services path.
    var pathName: String {
        switch self {
        case .public: return "public"
        case .private: return "private"
        case .shared: return "shared"
        }
    }
}
