import Foundation
import Logging
import ServiceLifecycle
import Stratus
import StratusBackend
import StratusConformance
import StratusRemote
import StratusServer
import Synchronization

/// One case's storage behind a `StratusServer` of its own on loopback, and the remote
/// containers of the case's user.
final class RemoteConformanceStorage: ContainerStorage {
    /// The user every container of the case belongs to.
    static let user = "conformance-user"

    let base: any FixtureStorage
    private let backend: any DatabaseBackend
    /// The server's base URL.
    let url: URL
    private let serving: Task<Void, any Error>
    private let group: ServiceGroup
    private let auth: AuthStore
    private let credentials = Mutex<[String: RemoteCredentials]>([:])

    private init(
        base: any FixtureStorage, backend: any DatabaseBackend, url: URL, serving: Task<Void, any Error>,
        group: ServiceGroup, auth: AuthStore
    ) {
        (self.base, self.backend, self.url, self.serving, self.auth) = (base, backend, url, serving, auth)
        self.group = group
    }

    /// Starts a server for `base` on a free loopback port and returns once it accepts
    /// connections.
    static func start(serving base: any FixtureStorage, recordEncoding: Bool = true) async throws
        -> RemoteConformanceStorage
    {
        let backend = try base.open()
        var logger = Logger(label: "stratus.conformance.server")
        logger.logLevel = .error
        var configured = StratusServer(
            backend: backend, backendDescription: "conformance storage", address: .init(host: "127.0.0.1", port: 0),
            limits: .init(engineThreads: 4), logger: logger)
        configured.recordEncoding = recordEncoding
        let server = configured
        let (ports, announce) = AsyncStream.makeStream(of: Int.self)
        // The server runs as a service of a group of the test's own, so that stopping it is a
        // graceful shutdown (what SIGTERM does to stratusd), not a cancellation.
        let group = ServiceGroup(
            services: [
                ServerService {
                    defer { announce.finish() }
                    try await server.run { _, port in announce.yield(port) }
                }
            ], logger: logger)
        // Off the cooperative pool, which the rest of a parallel test run keeps busy with
        // blocking waits: a server starved there answered nothing for minutes.
        let executor = SerialQueueExecutor(label: "stratus.conformance.server")
        let serving = Task { try await withTaskExecutorPreference(executor) { try await group.run() } }
        var listening = ports.makeAsyncIterator()
        guard let port = await listening.next() else {
            let failure = await serving.result
            try? backend.close()
            throw StartFailure(description: "the in-process stratusd stopped before it listened: \(failure)")
        }
        let url = URL(string: "http://127.0.0.1:\(port)")!
        return RemoteConformanceStorage(
            base: base, backend: backend, url: url, serving: serving, group: group,
            auth: AuthStore(engine: try Engine(backend: backend)))
    }

    func container(identifier: String) throws -> CKContainer {
        try container(identifier: identifier, environment: .development)
    }

    func container(identifier: String, environment: CKContainer.Environment) throws -> CKContainer {
        let production = environment == .production
        let credentials = try credentials(for: identifier, in: production ? .production : .development)
        return CKContainer(
            identifier: identifier,
            server: RemoteServer(
                url: url, credentials: credentials, environment: production ? .production : .development))
    }

    /// The credentials of `user` (the case user by default) in `identifier`'s `environment`,
    /// made (container, API token, session) the first time they are asked for.
    func credentials(
        for identifier: String, in environment: Namespace.Environment = .development,
        user: String = RemoteConformanceStorage.user
    ) throws -> RemoteCredentials {
        try credentials.withLock { known in
            let name = "\(identifier) \(environment.rawValue) \(user)"
            if let made = known[name] { return made }
            if !known.keys.contains(where: { $0.hasPrefix(identifier + " ") }) {
                try auth.createContainer(identifier, environments: [.development, .production])
            }
            let token = try auth.createAPIToken(container: identifier, environment: environment, label: "conformance")
            let session = try auth.createSession(
                container: identifier, environment: environment, externalUserID: user)
            let made = RemoteCredentials.session(apiToken: token.token, webAuthToken: session.token)
            known[name] = made
            return made
        }
    }

    func open() throws -> any DatabaseBackend { try base.open() }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = await serving.result
        try? backend.close()
    }

    func destroy() throws { try base.destroy() }

    struct StartFailure: Error, CustomStringConvertible {
        var description: String
    }
}

/// The in-process server as a service of the test's group.
private struct ServerService: Service {
    let body: @Sendable () async throws -> Void
    func run() async throws { try await body() }
}
