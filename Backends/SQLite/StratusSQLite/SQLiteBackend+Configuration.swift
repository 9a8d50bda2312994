import StratusBackend

extension SQLiteBackend {
    /// How a ``SQLiteBackend`` opens its store.
    ///
    /// Every property has a default, so `Configuration(location: .file(path: "app.sqlite"))`
    /// is a complete, durable configuration.
    public struct Configuration: Sendable, Hashable {
        /// Where the store lives.
        public enum Location: Sendable, Hashable {
            /// A database file at `path`, created if it does not exist, in WAL journal mode.
            ///
            /// The path is a plain file name (not a `file:` URI). Other processes may open
            /// the same file at the same time; see `Docs/Backends/SQLite.md`.
            case file(path: String)
            /// A private database in memory, gone when the backend is closed.
            ///
            /// An in-memory store has a single connection: reads and writes run one at a time
            /// under one lock instead of concurrently.
            case inMemory

            /// The location as a `sqlite:` URL, for logs.
            var url: BackendURL {
                switch self {
                case .inMemory: return BackendURL(scheme: "sqlite", path: ":memory:")
                case .file(let path):
                    return BackendURL(
                        scheme: "sqlite", authority: path.hasPrefix("/") ? .init(host: "") : nil, path: path)
                }
            }
        }

        /// How hard a commit works to survive a power loss.
        public enum Durability: Sendable, Hashable {
            /// `PRAGMA synchronous=FULL`: the write-ahead log is synced at every commit, so a
            /// transaction whose `write` returned survives a crash of the process, the
            /// operating system or the power. The default.
            case full
            /// `PRAGMA synchronous=NORMAL`: the log is synced only at checkpoints. A crash of
            /// the process loses nothing, but a power loss or an operating-system crash may
            /// lose the most recent commits. The store is never corrupted: after such a loss
            /// it holds the state as of some earlier commit.
            case normal
        }

        /// Where the store lives. Defaults to ``Location-swift.enum/inMemory``.
        public var location: Location
        /// How hard a commit works to survive a power loss. Defaults to
        /// ``Durability-swift.enum/full``.
        public var durability: Durability
        /// How long a transaction waits for a lock held by another connection or process
        /// before failing with ``BackendError/Code-swift.struct/busy``. Defaults to 5 seconds.
        public var busyTimeout: Duration
        /// The most read transactions of a file store that run at once, each on its own
        /// connection; further readers wait for one to finish. At least 1; defaults to 4.
        /// Ignored by an in-memory store.
        public var readerCount: Int

        /// A configuration; every argument has a default.
        public init(
            location: Location = .inMemory,
            durability: Durability = .full,
            busyTimeout: Duration = .seconds(5),
            readerCount: Int = 4
        ) {
            self.location = location
            self.durability = durability
            self.busyTimeout = busyTimeout
            self.readerCount = readerCount
        }

        /// ``busyTimeout`` in whole milliseconds, clamped to what `sqlite3_busy_timeout`
        /// accepts.
        var busyTimeoutMilliseconds: Int32 {
            let (seconds, attoseconds) = busyTimeout.components
            guard seconds >= 0, attoseconds >= 0 else { return 0 }
            let limit = Int64(Int32.max)
            if seconds >= limit / 1000 { return Int32.max }
            let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
            return Int32(min(milliseconds, limit))
        }
    }
}
