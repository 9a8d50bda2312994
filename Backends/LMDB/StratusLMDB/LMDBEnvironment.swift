import Foundation
import StratusBackend
import StratusCLMDB

/// One open `MDB_env` and its unnamed database, shared by every ``LMDBBackend`` handle on the
/// same directory in this process (LMDB forbids opening one environment twice in a process).
///
/// It enforces the process-wide rules of LMDB:
/// - write transactions run one at a time under ``writeLock`` (which also orders them with
///   map growth);
/// - every transaction enters the ``gate`` while it is alive, and the map is resized only when
///   the gate is empty (`mdb_env_set_mapsize` requires no active transaction in the process).
final class LMDBEnvironment: @unchecked Sendable {
    /// The directory, as the handles named it.
    let path: String
    let env: OpaquePointer
    let dbi: MDB_dbi
    let layout: LMDBKeyLayout
    /// The configuration of the handle that opened it: its durability and reader table are
    /// the environment's, which later handles in this process must ask for too.
    let configuration: LMDBBackend.Configuration
    /// Serializes write transactions and map growth.
    let writeLock = NSLock()
    /// Drops the map's pages from the resident set during long reads.
    let mappedPages: LMDBMappedPages
    /// Counts live transactions; see ``enter()`` and ``resize(_:)``.
    private let gate = NSCondition()
    private var activeTransactions = 0
    private var resizing = false
    /// How long growth waits for running transactions (such as a long read) to end.
    static let resizeWait: TimeInterval = 10

    /// Opens (creating if needed) the environment in the existing directory `path`.
    init(path: String, configuration: LMDBBackend.Configuration) throws {
        var created: OpaquePointer?
        try LMDBStatus.check(mdb_env_create(&created), "mdb_env_create")
        guard let env = created else { throw BackendError(.internal, "LMDB: mdb_env_create returned no environment") }
        do {
            try LMDBStatus.check(
                mdb_env_set_mapsize(env, configuration.initialMapSize), "mdb_env_set_mapsize")
            try LMDBStatus.check(
                mdb_env_set_maxreaders(env, UInt32(configuration.maxReaders)), "mdb_env_set_maxreaders")
            var flags = UInt32(MDB_NOTLS)
            switch configuration.durability {
            case .full: break
            case .noMetaSync: flags |= UInt32(MDB_NOMETASYNC)
            case .noSync: flags |= UInt32(MDB_NOSYNC)
            }
            try LMDBStatus.check(mdb_env_open(env, path, flags, 0o644), "open the environment at '\(path)'")
            var dead: Int32 = 0
            try LMDBStatus.check(mdb_reader_check(env, &dead), "mdb_reader_check")
            dbi = try Self.openDatabase(env)
        } catch {
            mdb_env_close(env)
            throw error
        }
        mappedPages = LMDBMappedPages(
            dataFile: path + "/data.mdb", interval: configuration.releaseMappedPagesEvery)
        mappedPages.refresh()
        self.env = env
        self.path = path
        self.configuration = configuration
        layout = LMDBKeyLayout(maxKeySize: Int(mdb_env_get_maxkeysize(env)))
    }

    deinit { mdb_env_close(env) }

    /// Opens the main database in a first write transaction. Another process may grow the map
    /// between `mdb_env_open` and this begin (`MDB_MAP_RESIZED`): the new size is adopted
    /// (`mdb_env_set_mapsize(env, 0)`, as LMDB documents) and the begin tried again.
    private static func openDatabase(_ env: OpaquePointer) throws -> MDB_dbi {
        var opened: OpaquePointer?
        var rc = mdb_txn_begin(env, nil, 0, &opened)
        while rc == MDB_MAP_RESIZED {
            try LMDBStatus.check(mdb_env_set_mapsize(env, 0), "adopt the map size another process set")
            rc = mdb_txn_begin(env, nil, 0, &opened)
        }
        try LMDBStatus.check(rc, "begin the opening transaction")
        guard let txn = opened else { throw BackendError(.internal, "LMDB: mdb_txn_begin returned no transaction") }
        var dbi: MDB_dbi = 0
        let opening = mdb_dbi_open(txn, nil, 0, &dbi)
        guard opening == MDB_SUCCESS else {
            mdb_txn_abort(txn)
            throw LMDBStatus(opening).error("mdb_dbi_open")
        }
        try LMDBStatus.check(mdb_txn_commit(txn), "commit the opening transaction")
        return dbi
    }

    /// Throws ``BackendError/Code-swift.struct/invalidArgument`` when a further handle asks
    /// for a durability or a reader table this open environment does not have: both are fixed
    /// for the `MDB_env` every handle of the process shares, and changing them would change
    /// the promises made to the handles already open.
    func checkShareable(with other: LMDBBackend.Configuration) throws {
        if other.durability != configuration.durability {
            throw BackendError(
                .invalidArgument,
                "LMDB: '\(path)' is already open in this process with durability \(configuration.durability); "
                    + "another handle on it must ask for the same, not \(other.durability)")
        }
        if other.releaseMappedPagesEvery != configuration.releaseMappedPagesEvery {
            throw BackendError(
                .invalidArgument,
                "LMDB: '\(path)' is already open in this process with releaseMappedPagesEvery "
                    + "\(configuration.releaseMappedPagesEvery); another handle on it must ask for the same, not "
                    + "\(other.releaseMappedPagesEvery)")
        }
        if other.maxReaders != configuration.maxReaders {
            throw BackendError(
                .invalidArgument,
                "LMDB: '\(path)' is already open in this process with maxReaders \(configuration.maxReaders); "
                    + "another handle on it must ask for the same, not \(other.maxReaders)")
        }
    }

    /// The current map size in bytes.
    var mapSize: Int {
        var info = MDB_envinfo()
        mdb_env_info(env, &info)
        return info.me_mapsize
    }

    /// Registers a transaction about to begin; waits while the map is being resized.
    func enter() {
        gate.lock()
        while resizing { gate.wait() }
        activeTransactions += 1
        gate.unlock()
    }

    /// Unregisters a transaction that has ended (committed or aborted).
    func exit() {
        gate.lock()
        activeTransactions -= 1
        if activeTransactions == 0 { gate.broadcast() }
        gate.unlock()
    }

    /// Sets the map size to `size` bytes (`0`: adopt the size another process set) once no
    /// transaction of this process is alive. The caller must not be inside a transaction.
    ///
    /// - Throws: ``BackendError/Code-swift.struct/busy`` when transactions did not end within
    ///   ``resizeWait``; the mapped error of `mdb_env_set_mapsize`.
    func resize(_ size: Int) throws {
        gate.lock()
        if resizing {
            // Another thread is resizing: wait for it, then let the caller retry.
            while resizing { gate.wait() }
            gate.unlock()
            return
        }
        resizing = true
        defer {
            resizing = false
            gate.broadcast()
            gate.unlock()
        }
        let deadline = Date(timeIntervalSinceNow: Self.resizeWait)
        while activeTransactions > 0 {
            guard gate.wait(until: deadline) else {
                throw BackendError(
                    .busy,
                    "LMDB: the map must grow but transactions of this process did not end within \(Int(Self.resizeWait)) s"
                )
            }
        }
        defer { mappedPages.refresh() }
        try LMDBStatus.check(mdb_env_set_mapsize(env, size), "grow the map to \(size) bytes")
    }
}

/// The environments open in this process, by directory, shared by handles and closed with the
/// last one.
enum LMDBEnvironments {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var open: [String: (environment: LMDBEnvironment, handles: Int)] = [:]

    /// The environment for `path`, opened if no handle has it open.
    static func acquire(path: String, configuration: LMDBBackend.Configuration) throws -> LMDBEnvironment {
        let key = canonical(path)
        lock.lock()
        defer { lock.unlock() }
        if let entry = open[key] {
            try entry.environment.checkShareable(with: configuration)
            open[key] = (entry.environment, entry.handles + 1)
            return entry.environment
        }
        let environment = try LMDBEnvironment(path: path, configuration: configuration)
        open[key] = (environment, 1)
        return environment
    }

    /// Gives back a handle's reference; the last one closes the environment.
    static func release(_ environment: LMDBEnvironment) {
        let key = canonical(environment.path)
        lock.lock()
        defer { lock.unlock() }
        guard let entry = open[key], entry.environment === environment else { return }
        open[key] = entry.handles > 1 ? (entry.environment, entry.handles - 1) : nil
    }

    private static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
    }
}
