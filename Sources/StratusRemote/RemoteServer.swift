public import Foundation

/// A `stratusd` that a remote container's operations run on (decision 0016): its URL, the
/// container environment, and who the requests are from.
///
/// ```swift
/// let server = RemoteServer(
///     url: URL(string: "https://cloud.example.com")!,
///     credentials: .session(apiToken: token, webAuthToken: session))
/// let container = CKContainer(identifier: "iCloud.com.example.app", server: server)
/// ```
public struct RemoteServer: Sendable, CustomStringConvertible {
    /// A CloudKit container environment.
    public enum Environment: String, Sendable {
        case development, production
    }

    /// The server's base URL, such as `http://127.0.0.1:8080`; requests go below it, to
    /// `/database/1/…`.
    public var url: URL
    /// Who the requests are from.
    public var credentials: RemoteCredentials
    /// The container environment the requests address.
    public var environment: Environment
    /// How long one HTTP request may take before it fails with `networkFailure`, when the
    /// operation sets no shorter `timeoutIntervalForRequest`.
    public var requestTimeout: Duration
    /// How long connecting may take, refused connections retried with backoff meanwhile,
    /// before a request fails with `networkUnavailable`.
    public var connectTimeout: Duration
    /// For an `https` server whose certificate is not signed by a CA the system trusts (a
    /// private CA, or a `stratusd` with a self-signed certificate): the path of a PEM file of
    /// the certificates to trust instead of the system's. `nil` trusts the system's roots.
    public var trustedCertificatesFile: String?
    /// Where fetched assets are kept, how much of them, and for how long a file handed out
    /// counts as in use (decision 0022); by default 512 MiB under `$TMPDIR/stratus-assets/remote`.
    public var assetCache = RemoteAssetCachePolicy()

    /// A server at `url`, addressed with `credentials` in `environment`.
    public init(
        url: URL, credentials: RemoteCredentials, environment: Environment = .development,
        requestTimeout: Duration = .seconds(60), connectTimeout: Duration = .seconds(10),
        trustedCertificatesFile: String? = nil
    ) {
        self.url = url
        self.credentials = credentials
        self.environment = environment
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.trustedCertificatesFile = trustedCertificatesFile
    }

    /// The URL and environment; never the credentials.
    public var description: String { "stratusd at \(url.absoluteString) (\(environment.rawValue))" }
}
