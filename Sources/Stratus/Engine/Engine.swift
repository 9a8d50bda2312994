import Foundation
import StratusBackend
import Synchronization

/// The operation engine: every CloudKit semantic over a `DatabaseBackend`.
///
/// All methods are synchronous and may block on the backend; operations call them from their
/// own threads. Write bodies are pure with respect to the outside world, so a body is simply
/// run again when the backend reports a serialization conflict.
///
/// `package` for stratusd (decision 0012.2): the server opens namespaces
/// (``database(namespace:scope:caller:)``) and calls ``DatabaseContext``'s request methods directly.
package final class Engine: Sendable {
    let backend: any DatabaseBackend
    /// The store's identity, bound into every token and cursor.
    let storeID: [UInt8]
    /// The key authenticating tokens and cursors (decision 0003).
    let macKey: [UInt8]
    /// The user record name of the single local user.
    let userRecordName = "_defaultUser"
    private let containerNumbers = Mutex<[SchemaScope: Int64]>([:])
    private let namespaceNumbers = Mutex<[Namespace: Int64]>([:])
    /// The long-lived operation journal's settings and in-process state (decision 0006).
    let journalState = JournalState()
    /// Finished writes through every engine over this backend object, but for those of the
    /// long-lived operation journal alone: a zone-changes read-ahead taken after one is read
    /// again (decision 0009).
    let writeGeneration: WriteGeneration
    /// Told after each committed ``write(_:)`` through any engine of this process on the same
    /// store, with ``writeGeneration`` naming the handle (a sync engine's change signal,
    /// decision 0017.7).
    let changeSignal: StoreChangeSignal
    /// Where the engine logs (`Docs/Logging.md`): operations, retried writes, read-ahead.
    let logger: Logger
    /// The environments' schemas as last parsed (decision 0020).
    let schemaRows = SchemaRowCache()
    /// The numbers of the zones this process has read, so a write reads its records' pointers
    /// with its first reads (``PreloadedRows``).
    let zoneNumbers = ZoneNumberHints()
    /// Told, after a commit, which notification logs it appended to (decision 0014.6).
    private let notificationObserver = Mutex<(@Sendable ([Int64]) -> Void)?>(nil)
    /// The most entries kept per notification log (decision 0014.2; ``setNotificationLogLimit(_:)``).
    let notificationLogMaximum = Atomic<Int64>(NotificationLog.defaultMaximumEntries)
    /// Where fetched assets are materialized, kept to its policy's size (decision 0022).
    let assetCache: AssetFileCache

    /// The store format this version writes and reads (decision 0008): 2, the change log
    /// carries the records. Format 1 (decision 0002's first layout) is refused on open.
    static let storeFormat: UInt8 = 2

    /// How many times a conflicting write body is run before giving up.
    static let maximumAttempts = 10

    /// An engine over `backend`, logging to `logger`, whose materialized assets are kept by
    /// `assetCache` (decision 0022).
    package init(
        backend: any DatabaseBackend, logger: Logger = Logger(label: "stratus.engine"),
        assetCache: AssetCachePolicy = AssetCachePolicy()
    ) throws {
        self.backend = backend
        self.logger = logger
        writeGeneration = WriteGeneration.shared(by: backend)
        let meta: [UInt8]
        do {
            meta = try Engine.runWrite(backend, logger: logger) { txn in
                if let existing = try txn.get(StoreLayout.storeMetaKey) { return existing }
                var generator = SystemRandomNumberGenerator()
                var w = ByteWriter()
                w.write(Engine.storeFormat)
                w.writeRaw((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
                w.writeRaw((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
                try txn.set(StoreLayout.storeMetaKey, w.bytes)
                return w.bytes
            }
        } catch {
            throw CKError.fromStore(error)
        }
        guard let format = meta.first, format == Engine.storeFormat else {
            throw CKError.make(
                .incompatibleVersion,
                "the store is in format \(meta.first.map(String.init) ?? "none"), written by "
                    + ((meta.first ?? 0) < Engine.storeFormat ? "an older" : "a newer")
                    + " pre-release version of Stratus; this version reads format \(Engine.storeFormat) only "
                    + "(decision 0008) and does not convert stores. Delete the store and sync again from nil "
                    + "change tokens")
        }
        guard meta.count == 49 else {
            throw CKError.make(.internalError, "the store's metadata is damaged (\(meta.count) bytes)")
        }
        storeID = Array(meta[1..<17])
        macKey = Array(meta[17..<49])
        changeSignal = StoreChangeSignal.shared(storeID: storeID)
        self.assetCache = AssetFileCache(directory: Engine.assetCacheDirectory(storeID: storeID), policy: assetCache)
    }

    /// Sets what is told, after each commit that appended notification entries, the numbers of
    /// the logs it appended to (stratusd's `NotificationHub` wakes their waiters).
    package func observeNotifications(_ observer: @escaping @Sendable ([Int64]) -> Void) {
        notificationObserver.withLock { $0 = observer }
    }

    /// The numbers of the notification logs that commits of any process appended to, as they
    /// commit, when the backend offers commit signals (PostgreSQL); `nil` otherwise. A
    /// ``StratusBackend/CommitSignal/reconnected`` element means some were missed.
    package func notificationSignals() -> AsyncStream<CommitSignal>? {
        (backend as? any CommitSignaling)?.signals(channel: NotificationLog.signalChannel)
    }

    /// Tells the observer that `logs` gained entries (after the commit).
    func notified(_ logs: [Int64]) {
        guard !logs.isEmpty, let observer = notificationObserver.withLock({ $0 }) else { return }
        observer(logs)
    }

    /// Runs a write body, again on a serialization conflict, and maps failures to `CKError`.
    func write<T>(_ body: (any BackendWriteTransaction) throws -> T) throws -> T {
        defer { writeGeneration.advance() }
        let result = try writeLeavingGeneration(body)
        changeSignal.send(origin: ObjectIdentifier(writeGeneration))
        return result
    }

    /// Runs a write body that changes only the long-lived operation journal, like
    /// ``write(_:)`` but leaving ``writeGeneration`` alone: it moves no zone's changes, so a
    /// zone-changes read-ahead stays valid (a long-lived fetch journals every batch while the
    /// next one is read ahead; decision 0009).
    func writeLeavingGeneration<T>(_ body: (any BackendWriteTransaction) throws -> T) throws -> T {
        do {
            return try readingAssets { try Engine.runWrite(backend, logger: logger, body) }
        } catch let conflict as JournalConflict {
            // Not a failure: the long-lived operation catches up with its journal.
            throw conflict
        } catch {
            throw CKError.fromStore(error)
        }
    }

    /// Runs a read body and maps failures to `CKError`.
    func read<T>(_ body: (any BackendReadTransaction) throws -> T) throws -> T {
        do {
            return try readingAssets { try backend.read(body) }
        } catch {
            throw CKError.fromStore(error)
        }
    }

    /// Runs `body` in a write transaction, again (up to ``maximumAttempts`` times) when the
    /// backend reports a serialization conflict; retries are logged at debug level, giving up
    /// at error level.
    private static func runWrite<T>(
        _ backend: any DatabaseBackend, logger: Logger, _ body: (any BackendWriteTransaction) throws -> T
    ) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                let result = try backend.write(body)
                if attempt > 1 {
                    logger.debug(
                        "write transaction committed after retrying on conflicts",
                        metadata: [LogKey.attempt: "\(attempt)", LogKey.maximumAttempts: "\(maximumAttempts)"])
                }
                return result
            } catch let error as BackendError where error.code == .conflict {
                guard attempt < maximumAttempts else {
                    logger.error(
                        "write transaction conflicted on every attempt; giving up",
                        metadata: [
                            LogKey.attempt: "\(attempt)", LogKey.maximumAttempts: "\(maximumAttempts)",
                            LogKey.error: "\(error.code)",
                        ])
                    throw error
                }
                logger.debug(
                    "write transaction conflicted; running it again",
                    metadata: [
                        LogKey.attempt: "\(attempt)", LogKey.maximumAttempts: "\(maximumAttempts)",
                        LogKey.error: "\(error.code)",
                    ])
                // Back off a little (up to ~50 ms) so competing writers interleave.
                usleep(UInt32(min(50_000, 500 << min(attempt, 7))))
            }
        }
    }

    /// The keys of one database of an embedded container in `environment`, registering the
    /// container on first use: `02 (identifier)` in development, `02 (identifier,
    /// "production")` in production (decision 0020.3).
    func database(
        container identifier: String, scope: CKDatabase.Scope, environment: Namespace.Environment = .development
    ) throws -> DatabaseContext {
        let schemaScope = SchemaScope(container: identifier, environment: environment)
        let number: Int64
        if let cached = containerNumbers.withLock({ $0[schemaScope] }) {
            number = cached
        } else {
            let key = StoreLayout.containerKey(identifier, environment: environment)
            number = try write { txn in try Engine.number(at: key, txn) }
            containerNumbers.withLock { $0[schemaScope] = number }
        }
        return DatabaseContext(
            engine: self, number: number, scope: scope, caller: embeddedCaller, schemaScope: schemaScope)
    }

    /// One database of a stratusd namespace (decision 0012.10), registering the namespace on
    /// first use: `05 (container, environment, owner)` → a number from the same counter as
    /// embedded containers' (`02 (identifier)`), so a namespace never shares a number with an
    /// embedded container or another namespace, and its data, tokens, cursors and journal live
    /// under that number exactly as a container's do.
    ///
    /// The engine does not tie `owner` to `scope`: the server opens a user's private and shared
    /// databases (and that user's own subscriptions to the public database) with the user's
    /// owner, and the public database with `""`.
    ///
    /// `caller` is who the requests run for (decision 0012.3): records are created and modified
    /// under its user record name, and the public database checks its role. `nil` is the
    /// embedded caller: the local user (`_defaultUser`) as ``Caller/Role/admin``.
    ///
    /// - Throws: `invalidArguments` for an empty container name, or a store failure as a
    ///   `CKError`.
    package func database(
        namespace: Namespace, scope: CKDatabase.Scope, caller: Caller? = nil
    ) throws -> DatabaseContext {
        guard !namespace.container.isEmpty else {
            throw CKError.make(.invalidArguments, "a namespace needs a container name")
        }
        let number: Int64
        if let cached = namespaceNumbers.withLock({ $0[namespace] }) {
            number = cached
        } else {
            number = try write { txn in try Engine.number(at: StoreLayout.namespaceKey(namespace), txn) }
            namespaceNumbers.withLock { $0[namespace] = number }
        }
        // A user's public-database subscriptions are indexed in the public database.
        let publicNumber =
            scope == .public && !namespace.owner.isEmpty
            ? try database(
                namespace: Namespace(container: namespace.container, environment: namespace.environment),
                scope: .public
            ).containerNumber : nil
        return DatabaseContext(
            engine: self, number: number, scope: scope, caller: caller ?? embeddedCaller,
            schemaScope: SchemaScope(container: namespace.container, environment: namespace.environment),
            namespaceOwner: namespace.owner, publicNumber: publicNumber)
    }

    /// The number registered at `key` (a container's or a namespace's directory entry), drawn
    /// from ``StoreLayout/containerCounterKey`` when there is none yet. Read and created in the
    /// caller's serializable transaction, so two processes racing get the same number (the
    /// loser conflicts, runs again and reads the winner's).
    private static func number(at key: [UInt8], _ txn: any BackendWriteTransaction) throws -> Int64 {
        if let existing = try txn.get(key) {
            var r = ByteReader(existing)
            return try r.readInt64()
        }
        var next: Int64 = 1
        if let counter = try txn.get(StoreLayout.containerCounterKey) {
            var r = ByteReader(counter)
            next = try r.readInt64()
        }
        var w = ByteWriter()
        w.write(next)
        try txn.set(key, w.bytes)
        var c = ByteWriter()
        c.write(next + 1)
        try txn.set(StoreLayout.containerCounterKey, c.bytes)
        return next
    }
}

/// A stratusd namespace (decision 0012.10): one container × environment's public database
/// (`owner` `""`), or one user's databases in it (`owner` the user record name).
package struct Namespace: Hashable, Sendable {
    /// A container's environment; each has its own data.
    package enum Environment: String, Hashable, Sendable, CaseIterable, Codable {
        case development, production
    }

    /// The container identifier, e.g. `iCloud.com.example.app`.
    package var container: String
    package var environment: Environment
    /// `""` for the public database, else a user record name.
    package var owner: String

    package init(container: String, environment: Environment, owner: String = "") {
        self.container = container
        self.environment = environment
        self.owner = owner
    }
}

/// One database of one container or namespace, as the engine addresses it.
package struct DatabaseContext: Sendable {
    let engine: Engine
    /// The container's or namespace's number (`03 (number, scope)`); tokens and cursors bind it.
    package let containerNumber: Int64
    package let scope: CKDatabase.Scope
    /// Who the requests run for: the creator and modifier of the records it saves, and the role
    /// the public database checks (decision 0012.3).
    package let caller: Caller
    let keys: DatabaseKeys
    /// The namespace's owner (`""` for a public database) for a stratusd namespace, `nil` for an
    /// embedded container. Only a user's namespace fires subscriptions into a notification log
    /// (decision 0014.1); embedded containers keep no log.
    let namespaceOwner: String?
    /// For a user's namespace opened on the public database (where the user's public-database
    /// subscriptions live, decision 0012.10): the public database's own number, whose index
    /// `41` lists them for public commits.
    let publicNumber: Int64?
    /// The container × environment whose schema this database shares (decision 0020).
    package let schemaScope: SchemaScope

    init(
        engine: Engine, number: Int64, scope: CKDatabase.Scope, caller: Caller, schemaScope: SchemaScope,
        namespaceOwner: String? = nil, publicNumber: Int64? = nil
    ) {
        self.engine = engine
        self.schemaScope = schemaScope
        self.containerNumber = number
        self.scope = scope
        self.caller = caller
        self.keys = DatabaseKeys(containerNumber: number, scope: Int64(scope.rawValue))
        self.namespaceOwner = namespaceOwner
        self.publicNumber = publicNumber
    }

    /// Whether this database's commits may fire subscriptions: a user's namespace (its own
    /// subscriptions) or a namespace's public database (its users' query subscriptions).
    var firesSubscriptions: Bool { namespaceOwner != nil }
    /// Whether fetched assets are copied to local files (``Engine/materialize(_:keys:_:)``):
    /// for embedded containers, whose apps read `CKAsset.fileURL`; never for stratusd's
    /// namespaces, whose clients get download URLs — a server that copied every fetched asset
    /// to its temporary directory would fill its disk.
    var materializesAssets: Bool { namespaceOwner == nil }

}
