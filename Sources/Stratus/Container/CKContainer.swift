public import Foundation
public import StratusBackend
import Synchronization

/// A container: an app's public, private and shared databases, over one backend.
///
/// The one line a ported app changes is the container set-up:
/// ```swift
/// let container = CKContainer(identifier: "iCloud.com.example.app", backend: try SQLiteBackend(…))
/// ```
/// Code that creates its own containers with `CKContainer(identifier:)` or
/// `CKContainer.default()` gets the backend registered for that identifier with
/// `CKContainer.register(_:forContainerIdentifier:)`, or the default one.
public final class CKContainer: NSObject, @unchecked Sendable {
    /// The container's identifier.
    public let containerIdentifier: String?

    let engine: Result<Engine, CKError>
    /// The environment of the container's own engine's databases (decision 0020.3).
    let environment: Namespace.Environment
    /// Where the container's operations and engine log (`Docs/Logging.md`).
    let logger: Logger
    private let databases = Mutex<[CKDatabase.Scope: CKDatabase]>([:])
    /// Where the databases' operations go instead of this container's engine, if set
    /// (decision 0016): a remote container's, or a test's.
    private let serviceFactory = Mutex<DatabaseServiceFactory?>(nil)
    /// Where `CKContainer.add(_:)` runs operations.
    let operationQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "stratus.container"
        return queue
    }()

    /// A container over `backend` — Stratus's set-up: the one line a port changes.
    ///
    /// A fetched asset's `fileURL` names a file of a cache of at most 512 MiB, which evicts the
    /// least recently used files not handed out in the last five minutes (decision 0022): copy a
    /// file the app means to keep. The configured default containers take the cache's size from
    /// `remoteAssetCacheBytes`.
    ///
    /// - Parameters:
    ///   - identifier: the container's identifier.
    ///   - backend: where the container's databases are stored.
    ///   - environment: the CloudKit environment of the container's data and schema:
    ///     `.development` (the default) adds record types and fields as records are saved;
    ///     `.production` keeps its data apart and enforces the schema imported for it
    ///     (`stratus schema import`, decision 0020).
    ///   - logger: where the container's operations and its engine log (operation start and
    ///     end, retried writes, read-ahead, long-lived replays: `Docs/Logging.md`). Defaults to
    ///     `Logger(label: "stratus.engine")`, which goes to the `LoggingSystem` the app
    ///     bootstrapped.
    public convenience init(
        identifier: String, backend: any DatabaseBackend, environment: Environment = .development,
        logger: Logger = Logger(label: "stratus.engine")
    ) {
        self.init(
            identifier: identifier, backend: backend, environment: environment, logger: logger,
            assetCache: AssetCachePolicy())
    }

    /// A container over `backend` whose fetched assets' files are kept by `assetCache`
    /// (decision 0022) — a Stratus extension, as the other parameters are: what the configured
    /// default containers are made with (`remoteAssetCacheBytes`).
    ///
    /// A fetched asset's `fileURL` names a file of the cache, which is trimmed to
    /// `assetCache.maximumBytes` after an answer adds a file, evicting the least recently
    /// handed-out files but none handed out within `assetCache.inUseInterval`: copy a file the
    /// app means to keep.
    ///
    /// - Parameters:
    ///   - identifier: the container's identifier.
    ///   - backend: where the container's databases are stored.
    ///   - environment: the CloudKit environment of the container's data and schema (see
    ///     ``init(identifier:backend:environment:logger:)``).
    ///   - logger: where the container's operations and its engine log.
    ///   - assetCache: how large the cache of fetched assets' files grows, and how long a file
    ///     handed out is kept.
    public init(
        identifier: String, backend: any DatabaseBackend, environment: Environment = .development,
        logger: Logger = Logger(label: "stratus.engine"), assetCache: AssetCachePolicy
    ) {
        self.containerIdentifier = identifier
        self.logger = logger
        self.environment = environment == .production ? .production : .development
        do {
            self.engine = .success(try Engine(backend: backend, logger: logger, assetCache: assetCache))
        } catch let error as CKError {
            self.engine = .failure(error)
        } catch {
            self.engine = .failure(CKError.fromStore(error))
        }
    }

    /// The container with `identifier`, over the backend registered for it (or the default
    /// backend). Without any registration its operations fail with `badContainer`.
    public convenience init(identifier: String) {
        switch CKContainer.registry.withLock({ $0.targets[identifier] ?? $0.defaultTarget }) {
        case .backend(let backend, let environment, let assetCache)?:
            self.init(
                identifier: identifier, backend: backend, environment: environment,
                logger: Logger(label: "stratus.engine"), assetCache: assetCache)
        case .service(let maker)?:
            self.init(
                identifier: identifier, serviceFactory: maker(identifier), logger: Logger(label: "stratus.engine"))
        case nil:
            self.init(unresolved: identifier)
        }
    }

    /// A container with no engine of its own, whose databases reach theirs through the
    /// services `factory` makes (decision 0016: a remote container). The engine-only features
    /// (the local long-lived journal) fail with `internalError`.
    package init(identifier: String, serviceFactory factory: @escaping DatabaseServiceFactory, logger: Logger) {
        self.containerIdentifier = identifier
        self.logger = logger
        self.environment = .development
        self.engine = .failure(
            CKError.make(.internalError, "container '\(identifier)' is served remotely and has no local engine"))
        super.init()
        serviceFactory.withLock { $0 = factory }
    }

    private init(unresolved identifier: String) {
        self.containerIdentifier = identifier
        self.logger = Logger(label: "stratus.engine")
        self.environment = .development
        self.engine = .failure(
            CKError.make(
                .badContainer,
                "no backend is configured for container '\(identifier)': call CKContainer.register(_:forContainerIdentifier:) or CKContainer.registerDefault(_:) at start-up (a server: StratusRemote's register(server:forContainerIdentifier:)), or use CKContainer(identifier:backend:)"
            ))
    }

    /// A CloudKit environment: each has its own data and schema (decision 0020).
    public enum Environment: Sendable {
        /// Record types and fields are added as records are saved (the just-in-time schema).
        case development
        /// The schema is fixed: saves and queries must keep to it.
        case production
    }

    // MARK: Resolution

    /// Makes the service factory of a container served elsewhere (decision 0016), given the
    /// container's identifier: a remote container's, registered by `StratusRemote`.
    package typealias ServiceFactoryMaker = @Sendable (String) -> DatabaseServiceFactory

    /// What `CKContainer(identifier:)` builds a container over.
    private enum Target {
        case backend(any DatabaseBackend, Environment, AssetCachePolicy)
        case service(ServiceFactoryMaker)
    }

    private struct Registry {
        var targets: [String: Target] = [:]
        var defaultTarget: Target?
        var defaultIdentifier = "iCloud.default"
        var defaultContainer: CKContainer?

        mutating func setDefault(_ target: Target, identifier: String) {
            defaultTarget = target
            defaultIdentifier = identifier
            defaultContainer = nil
        }
    }
    private static let registry = Mutex(Registry())

    /// Registers `backend` for containers made with `CKContainer(identifier:)`, in
    /// `environment` (decision 0020), replacing any registration of `identifier`.
    public static func register(
        _ backend: any DatabaseBackend, forContainerIdentifier identifier: String,
        environment: Environment = .development
    ) {
        register(backend, forContainerIdentifier: identifier, environment: environment, assetCache: AssetCachePolicy())
    }

    /// Registers `backend` as ``register(_:forContainerIdentifier:environment:)`` does, its
    /// containers' fetched assets kept by `assetCache` (decision 0022).
    package static func register(
        _ backend: any DatabaseBackend, forContainerIdentifier identifier: String,
        environment: Environment = .development, assetCache: AssetCachePolicy
    ) {
        registry.withLock { $0.targets[identifier] = .backend(backend, environment, assetCache) }
    }

    /// Registers the backend used by `CKContainer.default()` and by identifiers without a
    /// registration of their own, in `environment` (decision 0020), replacing the default
    /// registered before (a backend or a server); `identifier` names the default container.
    public static func registerDefault(
        _ backend: any DatabaseBackend, identifier: String = "iCloud.default", environment: Environment = .development
    ) {
        registerDefault(backend, identifier: identifier, environment: environment, assetCache: AssetCachePolicy())
    }

    /// Registers the default backend as ``registerDefault(_:identifier:environment:)`` does,
    /// its containers' fetched assets kept by `assetCache` (decision 0022; configuration's
    /// `remoteAssetCacheBytes`).
    package static func registerDefault(
        _ backend: any DatabaseBackend, identifier: String = "iCloud.default", environment: Environment = .development,
        assetCache: AssetCachePolicy
    ) {
        registry.withLock { $0.setDefault(.backend(backend, environment, assetCache), identifier: identifier) }
    }

    /// Registers, for containers made with `CKContainer(identifier:)`, databases served by the
    /// services `maker` makes for the identifier (decision 0016.4: a remote container, through
    /// `StratusRemote`'s `register(server:forContainerIdentifier:)`), replacing any
    /// registration of `identifier`.
    package static func register(
        serviceFactory maker: @escaping ServiceFactoryMaker, forContainerIdentifier identifier: String
    ) {
        registry.withLock { $0.targets[identifier] = .service(maker) }
    }

    /// Registers services made by `maker` as the default of `CKContainer.default()` and of
    /// identifiers without a registration of their own, replacing the default registered
    /// before; `identifier` names the default container.
    package static func registerDefault(
        serviceFactory maker: @escaping ServiceFactoryMaker, identifier: String = "iCloud.default"
    ) {
        registry.withLock { $0.setDefault(.service(maker), identifier: identifier) }
    }

    /// The app's default container (one instance per process).
    public static func `default`() -> CKContainer {
        if let existing = registry.withLock({ $0.defaultContainer }) { return existing }
        let identifier = registry.withLock { $0.defaultIdentifier }
        let container = CKContainer(identifier: identifier)
        return registry.withLock { state in
            if let existing = state.defaultContainer { return existing }
            state.defaultContainer = container
            return container
        }
    }

    // MARK: Databases

    /// The current user's private database.
    public var privateCloudDatabase: CKDatabase { database(with: .private) }
    /// The app's public database.
    public var publicCloudDatabase: CKDatabase { database(with: .public) }
    /// The database of zones shared with the current user.
    public var sharedCloudDatabase: CKDatabase { database(with: .shared) }

    /// The database with `databaseScope`.
    public func database(with databaseScope: CKDatabase.Scope) -> CKDatabase {
        databases.withLock { databases in
            if let existing = databases[databaseScope] { return existing }
            let database = CKDatabase(container: self, scope: databaseScope)
            databases[databaseScope] = database
            return database
        }
    }

    /// Routes this container's database operations through the services `factory` makes (one
    /// per database, on its first operation) instead of the container's own engine (decision
    /// 0016). Call it before the container's first operation.
    package func useDatabaseService(_ factory: @escaping DatabaseServiceFactory) {
        serviceFactory.withLock { $0 = factory }
    }

    /// The factory set by ``useDatabaseService(_:)``, if any.
    var databaseServiceFactory: DatabaseServiceFactory? { serviceFactory.withLock { $0 } }

    /// Runs `operation` against this container. A database operation without a database
    /// runs against the private database.
    public func add(_ operation: CKOperation) {
        if operation.configuration.container == nil {
            operation.configuration.container = self
        }
        operationQueue.addOperation(operation)
    }

    // MARK: Account

    /// The iCloud account status: always available in Stratus.
    public enum AccountStatus: Int, Sendable {
        case couldNotDetermine = 0
        case available = 1
        case restricted = 2
        case noAccount = 3
        case temporarilyUnavailable = 4
    }

    /// The account status (`.available`).
    public func accountStatus() async throws -> CKAccountStatus { .available }

    /// The account status (`.available`), through a completion handler.
    public func accountStatus(completionHandler: @escaping @Sendable (CKAccountStatus, (any Error)?) -> Void) {
        completionHandler(.available, nil)
    }

    /// The record ID of the current user.
    public func userRecordID() async throws -> CKRecord.ID {
        CKRecord.ID(recordName: try currentUserRecordName())
    }

    /// The record ID of the current user, through a completion handler.
    public func fetchUserRecordID(completionHandler: @escaping @Sendable (CKRecord.ID?, (any Error)?) -> Void) {
        do {
            completionHandler(CKRecord.ID(recordName: try currentUserRecordName()), nil)
        } catch {
            completionHandler(nil, error)
        }
    }

    /// The current user's record name: the registered service's (decision 0016), otherwise
    /// the engine's.
    private func currentUserRecordName() throws -> String {
        if databaseServiceFactory != nil { return try privateCloudDatabase.service().userRecordName }
        return try engine.get().userRecordName
    }
}

/// The iCloud account status (CloudKit's `CKAccountStatus`).
public typealias CKAccountStatus = CKContainer.AccountStatus

extension Notification.Name {
    /// Posted when the iCloud account changes (never, in Stratus).
    public static let CKAccountChanged = Notification.Name("CKAccountChanged")
}
