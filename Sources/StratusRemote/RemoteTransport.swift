import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Stratus
import StratusWebServices

/// One remote container's HTTP: the URLs of its requests, their credentials, and one blocking
/// round trip at a time over a process-wide `HTTPClient` (connection pool, keep-alive).
///
/// Operations call the engine seam from their own threads (an `OperationQueue`'s, never an
/// event loop's or the concurrency pool's), so a call waits for its answer there, as a local
/// engine's read would.
final class RemoteTransport: Sendable {
    let server: RemoteServer
    let containerIdentifier: String
    private let client: HTTPClient

    init(server: RemoteServer, containerIdentifier: String) {
        self.server = server
        self.containerIdentifier = containerIdentifier
        self.client = RemoteClients.client(connectTimeout: server.connectTimeout)
    }

    /// `POST`s `body` to `/database/1/{container}/{environment}/{scope}/{operation}`, retrying
    /// by `retry`, and answers the JSON of a 200.
    ///
    /// - Throws: the `CKError` of the server's error dictionary, or of the transport failure.
    func post(
        _ scope: CKDatabase.Scope, _ operation: String, _ body: JSONValue, headers: [(String, String)] = [],
        retry: RemoteRetry = .idempotent
    ) throws(CKError) -> JSONValue {
        let path = "database/1/\(containerIdentifier)/\(server.environment.rawValue)/\(scope.pathName)/\(operation)"
        let bytes = body.serialized()
        return try retry.run { () throws(CKError) -> JSONValue in
            try self.exchange(path: path, body: bytes, headers: headers)
        }
    }

    /// One request and its answer's JSON.
    private func exchange(path: String, body: [UInt8], headers: [(String, String)]) throws(CKError) -> JSONValue {
        let answer = try send(path: path, body: body, headers: headers)
        let json: JSONValue
        do {
            json = try JSONValue.parse(answer.body)
        } catch {
            if answer.status == 200 {
                throw RemoteFailure.error(.serverResponseLost, "the server's answer to \(path) is not JSON: \(error)")
            }
            throw RemoteFailure.status(answer.status, path: path)
        }
        guard answer.status == 200 else {
            throw WSErrorReader.error(from: json, status: answer.status, translator: WSRecordTranslator())
        }
        return json
    }

    /// One HTTP exchange: the status and body bytes.
    private func send(path: String, body: [UInt8], headers: [(String, String)]) throws(CKError) -> (
        status: Int, body: [UInt8]
    ) {
        do {
            var request = try HTTPClient.Request(url: url(path), method: .POST)
            request.headers.add(name: "Content-Type", value: "application/json")
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            request.body = .bytes(body)
            let deadline = NIODeadline.now() + .nanoseconds(server.requestTimeout.nanoseconds)
            let response = try client.execute(request: request, deadline: deadline).wait()
            let bytes = response.body.map { Array($0.readableBytesView) } ?? []
            return (Int(response.status.code), bytes)
        } catch {
            throw RemoteFailure.transport(error, path: path)
        }
    }

    /// The absolute URL of `path`, with the credentials' query items.
    private func url(_ path: String) -> String {
        var components = URLComponents()
        components.queryItems = server.credentials.queryItems.map { URLQueryItem(name: $0.0, value: $0.1) }
        let base =
            server.url.absoluteString.hasSuffix("/") ? server.url.absoluteString : server.url.absoluteString + "/"
        // `+` is legal in a query but read as a space by some servers: encode it too.
        let query = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B") ?? ""
        return base + path + "?" + query
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
