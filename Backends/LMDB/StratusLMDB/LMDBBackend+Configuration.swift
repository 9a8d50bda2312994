import StratusBackend

extension LMDBBackend {
    /// How an ``LMDBBackend`` opens its environment.
    ///
    /// Only ``path`` has no default: `Configuration(path: "/var/lib/app/store.lmdb")` is a
    /// complete, durable configuration.
    public struct Configuration: Sendable, Hashable {
        /// How hard a commit works to survive a crash of the operating system or the power.
        /// A crash of the process alone never loses a commit whose `write` returned.
        public enum Durability: Sendable, Hashable {
            /// Data and meta pages are synced at every commit: a commit whose `write` returned
            /// survives a power loss. The default.
            case full
            /// `MDB_NOMETASYNC` — **unsafe for power loss**: the meta page is not synced at
            /// commit, so a power or OS crash may lose the last commit (the store stays
            /// consistent, at an earlier commit).
            case noMetaSync
            /// `MDB_NOSYNC` — **unsafe for power loss**: nothing is synced at commit; a power
            /// or OS crash may lose recent commits, or, with a file system that reorders
            /// writes, damage the store.
            case noSync
        }

        /// The environment's directory. It must exist; LMDB creates `data.mdb` and `lock.mdb`
        /// in it.
        public var path: String
        /// The map size the environment starts with, in bytes (a larger size already stored in
        /// the environment wins). The map doubles by itself when full. Defaults to 64 MiB.
        public var initialMapSize: Int
        /// The largest the map may grow to, in bytes; a write that needs more fails with
        /// ``BackendError/Code-swift.struct/storageFull``. Defaults to 1 TiB.
        public var maxMapSize: Int
        /// The most read transactions alive at once across every process on the environment
        /// (LMDB's reader table, fixed when the environment is first opened). Defaults to 126.
        public var maxReaders: Int
        /// How hard a commit works to survive a power loss. Defaults to
        /// ``Durability-swift.enum/full``.
        public var durability: Durability
        /// After transactions of this process have read about this many bytes, the pages of
        /// the map they touched are dropped from the process's resident set
        /// (`madvise(MADV_DONTNEED)`; they stay in the operating system's page cache, and a
        /// later read maps them again). This keeps the resident size of a long scan flat
        /// instead of growing with the data read; `0` never drops them. Defaults to 32 MiB.
        public var releaseMappedPagesEvery: Int

        /// A configuration for the environment in the directory `path`.
        public init(
            path: String,
            initialMapSize: Int = 64 << 20,
            maxMapSize: Int = 1 << 40,
            maxReaders: Int = 126,
            durability: Durability = .full,
            releaseMappedPagesEvery: Int = 32 << 20
        ) {
            self.path = path
            self.initialMapSize = initialMapSize
            self.maxMapSize = maxMapSize
            self.maxReaders = maxReaders
            self.durability = durability
            self.releaseMappedPagesEvery = releaseMappedPagesEvery
        }

        /// The environment as an `lmdb:` URL, for logs.
        var url: BackendURL {
            BackendURL(scheme: "lmdb", authority: path.hasPrefix("/") ? .init(host: "") : nil, path: path)
        }

        func validate() throws {
            guard !path.isEmpty else { throw BackendError(.invalidArgument, "LMDB: no environment directory") }
            guard initialMapSize > 0, initialMapSize <= maxMapSize else {
                throw BackendError(
                    .invalidArgument,
                    "LMDB: initialMapSize must be positive and at most maxMapSize, got \(initialMapSize)")
            }
            guard (1...Int(Int32.max)).contains(maxReaders) else {
                throw BackendError(.invalidArgument, "LMDB: maxReaders must be at least 1, got \(maxReaders)")
            }
            guard releaseMappedPagesEvery >= 0 else {
                throw BackendError(
                    .invalidArgument,
                    "LMDB: releaseMappedPagesEvery must be 0 (never) or a number of bytes, got \(releaseMappedPagesEvery)"
                )
            }
        }
    }
}
