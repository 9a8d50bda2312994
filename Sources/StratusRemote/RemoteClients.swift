import AsyncHTTPClient
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// The process's HTTP clients, one per connect timeout and trust roots, each with its
/// connection pool over NIO's shared event loops. Like `HTTPClient.shared` they live as long as
/// the process: remote containers come and go, their connections stay pooled.
enum RemoteClients {
    private struct Key: Hashable {
        var connectTimeout: Int64
        var trustedCertificatesFile: String?
    }

    private static let clients = Mutex<[Key: HTTPClient]>([:])

    /// The client whose connection attempts give up after `connectTimeout` (re-trying a refused
    /// connection with backoff until then), and whose TLS trusts the certificates of the PEM file
    /// `trustedCertificatesFile` (the system's roots when `nil`; read when a connection is made).
    static func client(connectTimeout: Duration, trustedCertificatesFile: String? = nil) -> HTTPClient {
        let key = Key(connectTimeout: connectTimeout.nanoseconds, trustedCertificatesFile: trustedCertificatesFile)
        return clients.withLock { clients in
            if let existing = clients[key] { return existing }
            var configuration = HTTPClient.Configuration()
            configuration.timeout.connect = .nanoseconds(key.connectTimeout)
            if let trustedCertificatesFile {
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.trustRoots = .file(trustedCertificatesFile)
                configuration.tlsConfiguration = tls
            }
            let client = HTTPClient(
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
            clients[key] = client
            return client
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
