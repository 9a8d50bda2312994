/// How the API listener accepts connections and requests (decision 0012.5): TLS or not, how
/// many connections at once, how long an idle one stays open, how large a body may be.
public struct ConnectionSettings: Sendable {
    /// The certificate and key served over HTTPS; `nil` serves plain HTTP.
    public var tls: TLSCredentials?
    /// The most connections open at once; past it the listener stops accepting until one
    /// closes (Hummingbird's `MaximumAvailableConnections`).
    public var maxConnections: Int
    /// How long a connection may sit without a request before the server closes it.
    public var idleTimeout: Duration
    /// The largest request body the server reads, in bytes: a request whose `Content-Length`
    /// says more is refused with 413 before anything is read, and the routes collect bodies
    /// up to this limit.
    public var maxBodyBytes: Int

    /// Plain HTTP, 1024 connections, 30 s idle timeout and 16 MiB bodies unless given.
    public init(
        tls: TLSCredentials? = nil, maxConnections: Int = 1024, idleTimeout: Duration = .seconds(30),
        maxBodyBytes: Int = 16 * 1024 * 1024
    ) {
        self.tls = tls
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
        self.maxBodyBytes = maxBodyBytes
    }

    /// `https` with TLS, else `http`: the scheme of the URLs the server prints.
    public var scheme: String { tls == nil ? "http" : "https" }
}
