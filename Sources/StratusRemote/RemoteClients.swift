import AsyncHTTPClient
import NIOCore
import NIOPosix
import Synchronization

/// The process's HTTP clients, one per connect timeout, each with its connection pool over
/// NIO's shared event loops. Like `HTTPClient.shared` they live as long as the process: remote
/// containers come and go, their connections stay pooled.
enum RemoteClients {
    private static let clients = Mutex<[Int64: HTTPClient]>([:])

    /// The client whose connection attempts give up after `connectTimeout` (re-trying a refused
    /// connection with backoff until then).
    static func client(connectTimeout: Duration) -> HTTPClient {
        let nanoseconds = connectTimeout.nanoseconds
        return clients.withLock { clients in
            if let existing = clients[nanoseconds] { return existing }
            var configuration = HTTPClient.Configuration()
            configuration.timeout.connect = .nanoseconds(nanoseconds)
            let client = HTTPClient(
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
            clients[nanoseconds] = client
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
