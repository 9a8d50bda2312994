import Crypto
import Foundation
import Hummingbird
import Logging

/// The listener that answers `GET /metrics` with Prometheus text, apart from the API
/// (decision 0013.7): on loopback by default, so a scrape needs no secret; anywhere else only
/// with a bearer token.
public struct MetricsListener: Sendable {
    /// The host to bind; `127.0.0.1` unless configured.
    public var host: String
    /// The port; 0 picks a free one (reported to `onListening`).
    public var port: Int
    /// The token a scrape must present as `Authorization: Bearer …`; `nil` lets any caller
    /// that reaches the listener scrape, which only a loopback host allows.
    public var bearerToken: String?
    /// The exposition: Prometheus text of every metric recorded so far.
    public var exposition: @Sendable () -> String
    /// Called with the bound host and port once the listener accepts connections.
    public var onListening: @Sendable (String, Int) async -> Void

    /// A listener on `host:port` serving `exposition()`.
    ///
    /// - Throws: ``MetricsListenerError`` when `host` is not a loopback address and there is
    ///   no `bearerToken`, or the token is empty.
    public init(
        host: String = "127.0.0.1", port: Int = 9464, bearerToken: String? = nil,
        exposition: @escaping @Sendable () -> String,
        onListening: @escaping @Sendable (String, Int) async -> Void = { _, _ in }
    ) throws {
        if let bearerToken, bearerToken.isEmpty {
            throw MetricsListenerError("the metrics bearer token is empty")
        }
        guard bearerToken != nil || Self.isLoopback(host) else {
            throw MetricsListenerError(
                "metrics on \(host), which is not a loopback address, need a bearer token "
                    + "(metricsBearerTokenFile); without one, bind metrics to 127.0.0.1")
        }
        self.host = host
        self.port = port
        self.bearerToken = bearerToken
        self.exposition = exposition
        self.onListening = onListening
    }

    /// Whether `host` reaches this machine only: `localhost`, `::1` or an address in
    /// 127.0.0.0/8.
    public static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.first == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The Hummingbird application of this listener, logging with `logger`.
    func application(logger: Logger) -> some ApplicationProtocol {
        let router = Router()
        let check = bearerToken.map { BearerTokenCheck(token: $0) }
        let exposition = exposition
        router.get("/metrics") { request, _ -> Response in
            if let check, !check.accepts(request.headers[.authorization]) {
                var headers = HTTPFields()
                headers[.wwwAuthenticate] = "Bearer"
                return Response(status: .unauthorized, headers: headers)
            }
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: exposition())))
        }
        let onListening = onListening
        let host = host
        let port = port
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "stratusd-metrics"),
            onServerRunning: { channel in
                let bound = channel.localAddress
                await onListening(bound?.ipAddress ?? host, bound?.port ?? port)
            },
            logger: logger)
    }
}

/// Compares a presented `Authorization` header with the token by their SHA-256 digests,
/// whose `==` takes the same time wherever they differ (decision 0013.8).
struct BearerTokenCheck: Sendable {
    /// The digest of the token.
    let expected: SHA256.Digest

    init(token: String) {
        expected = SHA256.hash(data: Data(token.utf8))
    }

    /// Whether `header` is `Bearer <the token>`.
    func accepts(_ header: String?) -> Bool {
        guard let header, header.hasPrefix("Bearer ") else { return false }
        return SHA256.hash(data: Data(header.dropFirst("Bearer ".count).utf8)) == expected
    }
}

/// A metrics listener that must not start.
public struct MetricsListenerError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
