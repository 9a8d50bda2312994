public import Stratus

extension CKContainer {
    /// Makes `CKContainer(identifier: identifier)` a remote container on `server` (decision
    /// 0016.4), replacing any backend or server registered for `identifier` before.
    ///
    /// ```swift
    /// CKContainer.register(server: server, forContainerIdentifier: "iCloud.com.example.shared")
    /// let shared = CKContainer(identifier: "iCloud.com.example.shared")   // on the server
    /// ```
    ///
    /// Each container made is a new `CKContainer(identifier:server:logger:)`; nothing is
    /// sent before its first operation.
    public static func register(server: RemoteServer, forContainerIdentifier identifier: String) {
        register(
            serviceFactory: { remoteServiceFactory(server: server, identifier: $0) }, forContainerIdentifier: identifier
        )
    }

    /// Makes `CKContainer.default()`, and `CKContainer(identifier:)` for identifiers without a
    /// registration of their own, remote containers on `server`, replacing the default backend
    /// or server registered before; `identifier` names the default container.
    ///
    /// `StratusBootstrap.configureDefaultContainers()` (module `StratusConfiguration`) calls it
    /// when the `server` key is configured, so unchanged CloudKit code reaches the server.
    public static func registerDefault(server: RemoteServer, identifier: String = "iCloud.default") {
        registerDefault(
            serviceFactory: { remoteServiceFactory(server: server, identifier: $0) }, identifier: identifier)
    }

    /// The service factory of a remote container `identifier` on `server`: the one
    /// `CKContainer(identifier:server:logger:)` gives its databases.
    static func remoteServiceFactory(server: RemoteServer, identifier: String) -> DatabaseServiceFactory {
        let transport = RemoteTransport(server: server, containerIdentifier: identifier)
        let caller = RemoteCaller(transport: transport)
        return { database in
            RemoteDatabaseService(
                scope: database.databaseScope, transport: transport, userRecordName: try caller.userRecordName())
        }
    }
}
