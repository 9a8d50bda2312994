import Hummingbird
import NIOCore
import NIOHTTP1

/// The status a request that ended in an error is logged and counted under: the status the
/// client got, or 499 when it got none because its connection failed.
enum ErrorStatus {
    /// nginx's "client closed request": the connection failed or the client left before an
    /// answer; nothing was sent.
    static let clientClosedRequest = HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request")

    /// A refusal's own status; 400 for a malformed request (Hummingbird answers it so and
    /// closes the connection); 499 for the connection's own failure
    /// (``isFromTheConnection(_:)``); 500 for anything else.
    static func of(_ error: any Error) -> HTTPResponse.Status {
        if let refusal = error as? any HTTPResponseError { return refusal.status }
        if error is HTTPParserError { return .badRequest }
        if isFromTheConnection(error) { return clientClosedRequest }
        return .internalServerError
    }

    /// Whether `error` comes from the connection (its framing, its end) rather than the server:
    /// a malformed request, a body whose connection failed while it was read
    /// (``ConnectionFailure``), a cancelled task, NIO's channel and I/O errors.
    static func isFromTheConnection(_ error: any Error) -> Bool {
        error is HTTPParserError || error is ConnectionFailure || error is CancellationError || error is ChannelError
            || error is IOError
    }
}
