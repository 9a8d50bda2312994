public import Logging
public import Stratus

extension CKContainer {
    /// A container whose databases live on a `stratusd` (decision 0016): the same API, the same
    /// operations and callbacks, with every request answered by the server's engine.
    ///
    /// ```swift
    /// let container = CKContainer(
    ///     identifier: "iCloud.com.example.app",
    ///     server: RemoteServer(url: serverURL, credentials: .session(apiToken: token, webAuthToken: session)))
    /// let saved = try await container.privateCloudDatabase.save(record)
    /// ```
    ///
    /// Nothing is sent until the first operation, which asks the server who the credentials'
    /// user is; a server that cannot be reached fails that operation with
    /// `CKError.networkUnavailable`, credentials it refuses with `notAuthenticated`.
    /// Long-lived operations run on the server, which keeps running them after the app exits.
    /// Assets in saved records are not supported yet: such a save fails with
    /// `invalidArguments`.
    ///
    /// - Parameters:
    ///   - identifier: the container's identifier, as created on the server
    ///     (`stratusd admin container create`).
    ///   - server: the server, its environment and the credentials.
    ///   - logger: where the container's operations log.
    public convenience init(
        identifier: String, server: RemoteServer, logger: Logger = Logger(label: "stratus.engine")
    ) {
        self.init(
            identifier: identifier, serviceFactory: Self.remoteServiceFactory(server: server, identifier: identifier),
            logger: logger)
    }
}
