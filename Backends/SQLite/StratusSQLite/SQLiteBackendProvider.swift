public import StratusBackend

/// Makes ``SQLiteBackend``s from `sqlite:` URLs: how the embedded default joins configuration.
///
/// | URL | Store |
/// |---|---|
/// | `sqlite:///var/lib/app/store.sqlite` | the file at an absolute path |
/// | `sqlite:data/store.sqlite` | the file at a path relative to the current directory |
/// | `sqlite::memory:` | a private store in memory, gone when closed |
///
/// Options (query parameters): `durability=full|normal` (default `full`),
/// `busyTimeout=<duration>` such as `500ms` or `5s` (default `5s`), and `readers=<1…64>`
/// (default 4). The file is created if it does not exist, and so are its directory and the
/// directory's missing parents.
///
/// ```swift
/// BackendRegistry.shared.register(SQLiteBackendProvider())
/// let backend = try BackendRegistry.shared.makeBackend(for: "sqlite:///tmp/app.sqlite?durability=normal")
/// ```
public struct SQLiteBackendProvider: BackendProvider {
    /// A provider.
    public init() {}

    /// `sqlite`.
    public var scheme: String { "sqlite" }

    /// One line for listings.
    public var summary: String { "SQLite, the embedded default: one database file, or a private store in memory" }

    /// The URL forms.
    public var examples: [String] {
        ["sqlite:///var/lib/app/store.sqlite", "sqlite:relative/store.sqlite", "sqlite::memory:"]
    }

    /// `durability`, `busyTimeout` and `readers`.
    public var options: [BackendOption] {
        [
            BackendOption(
                name: "durability", accepted: "full | normal", defaultValue: "full",
                summary:
                    "full syncs the log at every commit; normal only at checkpoints (a power loss may lose the last commits)"
            ),
            BackendOption(
                name: "busyTimeout", accepted: "a duration: 500ms, 5s, 2m, 0", defaultValue: "5s",
                summary: "how long a transaction waits for another process's lock before failing with busy"),
            BackendOption(
                name: "readers", accepted: "1 to 64", defaultValue: "4",
                summary: "how many read transactions of a file store run at once"),
        ]
    }

    /// The configuration `url` describes, without opening anything.
    ///
    /// - Throws: ``BackendConfigurationError`` naming a bad location or option value.
    public func configuration(for url: BackendURL) throws -> SQLiteBackend.Configuration {
        let durability = try url.choice(
            "durability", [("full", SQLiteBackend.Configuration.Durability.full), ("normal", .normal)], default: .full)
        let busyTimeout = try url.duration("busyTimeout", default: .seconds(5))
        let readers = try url.integer("readers", in: 1...64, default: 4)
        return SQLiteBackend.Configuration(
            location: try location(of: url), durability: durability, busyTimeout: busyTimeout, readerCount: readers)
    }

    /// Opens the store `url` names, creating the file's directory and its missing parents.
    ///
    /// - Throws: ``BackendConfigurationError`` for a bad URL or a directory that cannot be
    ///   created (naming it and why); `BackendError` when SQLite cannot open the file.
    public func makeBackend(for url: BackendURL) throws -> any DatabaseBackend {
        let configuration = try configuration(for: url)
        if case .file(let path) = configuration.location {
            try BackendDirectory.create(FileSystem.directory(of: path), for: url)
        }
        return try SQLiteBackend(configuration: configuration)
    }

    /// A new temporary directory holding `store.sqlite`, opened with `url`'s options.
    ///
    /// - Throws: ``BackendConfigurationError`` with code
    ///   ``BackendConfigurationError/Code-swift.struct/unsupported`` for `sqlite::memory:`,
    ///   which cannot be reopened (every handle is a new empty store).
    public func makeTemporaryStorage(like url: BackendURL) throws -> any TemporaryStorage {
        let configuration = try configuration(for: url)
        guard case .file = configuration.location else {
            throw BackendConfigurationError(
                .unsupported,
                "'\(url)' cannot be reopened (every handle on sqlite::memory: is a new, empty store), so it cannot host storage that is opened more than once; use a file, such as sqlite:///tmp/stratus.sqlite",
                url: url)
        }
        return try SQLiteTemporaryStorage(options: url.options)
    }

    private func location(of url: BackendURL) throws -> SQLiteBackend.Configuration.Location {
        if let authority = url.authority {
            guard authority.host.isEmpty, authority.user == nil, authority.port == nil else {
                throw BackendConfigurationError.invalidLocation(
                    url,
                    "a sqlite URL names no host; write sqlite:///absolute/path.sqlite (three slashes) or sqlite:relative/path.sqlite"
                )
            }
        }
        if url.path == ":memory:" && url.authority == nil { return .inMemory }
        guard !url.path.isEmpty, url.path != "/" else {
            throw BackendConfigurationError.invalidLocation(
                url,
                "no file path; write sqlite:///absolute/path.sqlite, sqlite:relative/path.sqlite or sqlite::memory:")
        }
        guard !url.path.hasSuffix("/") else {
            throw BackendConfigurationError.invalidLocation(url, "'\(url.path)' names a directory, not a file")
        }
        return .file(path: url.path)
    }
}
