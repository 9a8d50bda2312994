/// What a ``FaultProxy`` does to one HTTP exchange (a request and its response) between a client
/// and the server behind it.
public enum FaultProxyFault: Sendable, Equatable, CustomStringConvertible {
    /// Forwards the request and the response untouched.
    case pass
    /// Forwards only the first `afterBytes` bytes of the request (never all of it), then closes
    /// both connections: the server never gets the whole request, so it applies nothing.
    case dropRequest(afterBytes: Int)
    /// Forwards the whole request and waits for the server's whole response, then returns only
    /// its first `afterBytes` bytes (never all of it) and closes: the server applied the request,
    /// the client never learns its outcome.
    case dropResponse(afterBytes: Int)
    /// Holds the request for `seconds` before forwarding it (the client may give up meanwhile,
    /// and the request still reaches the server late), then passes the exchange.
    case stallRequest(seconds: Double)
    /// Forwards the request, holds the server's response for `seconds`, then returns it (when
    /// the client is still there).
    case stallResponse(seconds: Double)
    /// Closes the client's connection at once, forwarding nothing.
    case closeAtOnce
    /// Answers `bytes` of its own, forwarding nothing, then closes the connection.
    case respond([UInt8])

    /// The fault in a line, for logs and failure messages.
    public var description: String {
        switch self {
        case .pass: "pass"
        case .dropRequest(let bytes): "drop request after \(bytes) bytes"
        case .dropResponse(let bytes): "drop response after \(bytes) bytes"
        case .stallRequest(let seconds): "stall request \(seconds) s"
        case .stallResponse(let seconds): "stall response \(seconds) s"
        case .closeAtOnce: "close at once"
        case .respond(let bytes): "respond with \(bytes.count) bytes of its own"
        }
    }

    /// Whether the server may have applied the request: every fault but the ones that keep
    /// the whole request from it.
    public var mayReachServer: Bool {
        switch self {
        case .dropRequest, .closeAtOnce, .respond: false
        case .pass, .dropResponse, .stallRequest, .stallResponse: true
        }
    }
}

/// One HTTP exchange as a ``FaultProxy`` saw it: what the request was, the fault applied, and
/// what got through. Only the path is kept — the query string carries credentials.
public struct FaultProxyExchange: Sendable, CustomStringConvertible {
    /// The exchange's number among all of the proxy's, from 0.
    public var index: Int
    /// The client connection's number, from 0.
    public var connection: Int
    /// The request's method, such as `POST`.
    public var method: String
    /// The request's path without its query string.
    public var path: String
    /// The request's `X-Stratus-Operation-ID`, if any.
    public var operationID: String?
    /// The fault applied.
    public var fault: FaultProxyFault = .pass
    /// Whether the whole request was forwarded to the server.
    public var reachedServer = false
    /// The status of the server's response, when one was read.
    public var serverStatus: Int?
    /// The body of the server's response, as it came (chunked bodies with their framing), when
    /// one was read.
    public var serverBody: [UInt8] = []
    /// Whether the whole response (the server's or the proxy's own) was written to the client's
    /// connection — which a client that gave up meanwhile may have closed without reading it.
    public var answered = false

    /// The exchange in a line.
    public var description: String {
        "#\(index) conn \(connection) \(method) \(path) [\(fault)] reached=\(reachedServer) "
            + "status=\(serverStatus.map(String.init) ?? "-") answered=\(answered)"
    }
}
