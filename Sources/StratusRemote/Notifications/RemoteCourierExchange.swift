import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Stratus
import StratusWebServices

/// The HTTP of a remote container's notifications (decision 0016.7): `tokens/create` and the
/// courier's long-poll, as `async` requests that the consuming task's cancellation cancels.
///
/// Messages name a request's path with the courier token left out: the token is a capability
/// (decision 0014.4), as secret as the credentials.
struct RemoteCourierExchange: Sendable {
    /// The server, its environment and the credentials.
    let server: RemoteServer
    /// The container's identifier.
    let containerIdentifier: String

    /// The most bytes one answer may have: 400 entries of a few kilobytes each.
    static let largestAnswer = 16 << 20

    /// `POST …/{container}/{environment}/tokens/create`: a new courier token for the
    /// credentials' user.
    ///
    /// - Throws: `notAuthenticated` when the credentials are refused or anonymous, or the
    ///   `CKError` of the transport failure.
    func createToken() async throws(CKError) -> String {
        let path = "database/1/\(containerIdentifier)/\(server.environment.rawValue)/tokens/create"
        let body: JSONValue = ["apnsEnvironment": .string(server.environment.rawValue)]
        let answer = try await exchange(
            .POST, path: path, shownAs: path, query: server.credentials.queryItems, body: body.serialized(),
            wait: 0)
        guard case .string(let url) = answer["webcourierURL"], let token = url.split(separator: "/").last,
            url.contains("/notifications/1/")
        else {
            throw RemoteFailure.error(.serverResponseLost, "tokens/create answered no webcourierURL")
        }
        return String(token)
    }

    /// `GET /notifications/1/{token}?after=&limit=&timeout=`: the entries after `after` (the
    /// token's stored cursor when `nil`, else acknowledging everything up to it), waiting up to
    /// `timeout` seconds for the first.
    func poll(token: String, after: Int64?, limit: Int, timeout: Int) async throws(CKError) -> JSONValue {
        var query = [("limit", String(limit)), ("timeout", String(timeout))]
        if let after { query.insert(("after", String(after)), at: 0) }
        // The courier URL is a capability of its own: no credentials ride along.
        return try await exchange(
            .GET, path: "notifications/1/\(token)", shownAs: "notifications/1/<token>", query: query, body: nil,
            wait: Double(timeout))
    }

    /// One request and its answer's JSON; `wait` seconds are added to the request timeout.
    private func exchange(
        _ method: HTTPMethod, path: String, shownAs shown: String, query: [(String, String)], body: [UInt8]?,
        wait: Double
    ) async throws(CKError) -> JSONValue {
        let answer = await Result(asyncCatching: { () async throws(any Error) -> (Int, ByteBuffer) in
            var request = HTTPClientRequest(url: url(path, query))
            request.method = method
            if let body {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(bytes: body))
            }
            let timeout = server.requestTimeout.nanoseconds + Int64(wait * 1_000_000_000)
            let client = RemoteClients.client(
                connectTimeout: server.connectTimeout, trustedCertificatesFile: server.trustedCertificatesFile)
            let response = try await client.execute(request, deadline: .now() + .nanoseconds(timeout))
            return (Int(response.status.code), try await response.body.collect(upTo: Self.largestAnswer))
        })
        let (status, bytes): (Int, ByteBuffer)
        switch answer {
        case .success(let received): (status, bytes) = received
        case .failure(let error): throw RemoteFailure.transport(error, path: shown)
        }
        guard let json = try? JSONValue.parse(Array(bytes.readableBytesView)) else {
            if status == 200 {
                throw RemoteFailure.error(.serverResponseLost, "the server's answer to \(shown) is not JSON")
            }
            throw RemoteFailure.status(status, path: shown)
        }
        guard status == 200 else {
            throw WSErrorReader.error(from: json, status: status, translator: WSRecordTranslator())
        }
        return json
    }

    /// The absolute URL of `path` below the server's URL, with `query`.
    private func url(_ path: String, _ query: [(String, String)]) -> String {
        var components = URLComponents()
        components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) }
        let base = server.url.absoluteString
        let separator = base.hasSuffix("/") ? "" : "/"
        // `+` is legal in a query but read as a space by some servers: encode it too.
        let encoded = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B") ?? ""
        return base + separator + path + "?" + encoded
    }
}
