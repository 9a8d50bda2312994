/// A request's body could not be read because its connection failed: the client went away
/// mid-body, its TLS ended without `close_notify` or with a damaged record, the idle timeout
/// struck. It is the client's failure, not the server's: ``InternalErrorMiddleware`` lets it
/// pass, and Hummingbird ends the connection (nobody is left to read an answer).
struct ConnectionFailure: Error, CustomStringConvertible {
    /// What the connection reported.
    let underlying: any Error

    var description: String { "the connection failed while its request body was read: \(underlying)" }
}
