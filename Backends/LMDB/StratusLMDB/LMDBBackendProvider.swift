public import StratusBackend

/// Makes ``LMDBBackend``s from `lmdb:` URLs.
///
/// | URL | Store |
/// |---|---|
/// | `lmdb:///var/lib/app/store.lmdb` | the environment in a directory at an absolute path |
/// | `lmdb:data/store.lmdb` | the same, relative to the current directory |
///
/// Options: `mapSize` (initial map size, such as `64MiB` or `1GiB`; default `64MiB`),
/// `maxMapSize` (default `1TiB`), `maxReaders` (default 126),
/// `durability=full|nometasync|nosync` (default `full`; the others are unsafe on power loss) and
/// `releaseMappedPages` (a size such as `32MiB`, the default, or `0` for never: see
/// ``LMDBBackend/Configuration/releaseMappedPagesEvery``).
/// The directory is created if it does not exist, and so are its missing parents.
///
/// ```swift
/// BackendRegistry.shared.register(LMDBBackendProvider())
/// let backend = try BackendRegistry.shared.makeBackend(for: "lmdb:///tmp/app.lmdb?mapSize=1GiB")
/// ```
public struct LMDBBackendProvider: BackendProvider {
    /// A provider.
    public init() {}

    /// `lmdb`.
    public var scheme: String { "lmdb" }

    /// One line for listings.
    public var summary: String { "LMDB: one memory-mapped environment in a directory, growing by itself" }

    /// The URL forms.
    public var examples: [String] { ["lmdb:///var/lib/app/store.lmdb", "lmdb:relative/store.lmdb?mapSize=1GiB"] }

    /// `mapSize`, `maxMapSize`, `maxReaders`, `durability` and `releaseMappedPages`.
    public var options: [BackendOption] {
        [
            BackendOption(
                name: "mapSize", accepted: "a size: 65536, 64KiB, 64MiB, 1GiB", defaultValue: "64MiB",
                summary: "the map size the environment starts with; it doubles by itself when full"),
            BackendOption(
                name: "maxMapSize", accepted: "a size: 1GiB, 1TiB", defaultValue: "1TiB",
                summary: "the largest the map may grow to; a write needing more fails with storageFull"),
            BackendOption(
                name: "maxReaders", accepted: "1 to 100000", defaultValue: "126",
                summary: "the most read transactions alive at once across all processes"),
            BackendOption(
                name: "durability", accepted: "full | nometasync | nosync", defaultValue: "full",
                summary:
                    "full syncs every commit; nometasync and nosync are unsafe: a power loss may lose recent commits"
            ),
            BackendOption(
                name: "releaseMappedPages", accepted: "a size: 32MiB, 1GiB, or 0 for never", defaultValue: "32MiB",
                summary:
                    "after reads of this many bytes, drop the map's pages from the resident set (not the page cache)"
            ),
        ]
    }

    /// The configuration `url` describes, without opening anything.
    ///
    /// - Throws: ``BackendConfigurationError`` naming a bad location or option value.
    public func configuration(for url: BackendURL) throws -> LMDBBackend.Configuration {
        typealias Durability = LMDBBackend.Configuration.Durability
        let durability = try url.choice(
            "durability", [("full", Durability.full), ("nometasync", .noMetaSync), ("nosync", .noSync)],
            default: .full)
        return LMDBBackend.Configuration(
            path: try location(of: url),
            initialMapSize: try size("mapSize", in: url, default: 64 << 20),
            maxMapSize: try size("maxMapSize", in: url, default: 1 << 40),
            maxReaders: try url.integer("maxReaders", in: 1...100_000, default: 126),
            durability: durability,
            releaseMappedPagesEvery: try size("releaseMappedPages", in: url, default: 32 << 20, zeroMeans: "never"))
    }

    /// Opens the environment `url` names, creating its directory and the directory's missing
    /// parents.
    ///
    /// - Throws: ``BackendConfigurationError`` for a bad URL or a directory that cannot be
    ///   created (naming it and why); `BackendError` when LMDB cannot open the environment.
    public func makeBackend(for url: BackendURL) throws -> any DatabaseBackend {
        let configuration = try configuration(for: url)
        try BackendDirectory.create(configuration.path, for: url)
        return try LMDBBackend(configuration: configuration)
    }

    /// A new temporary directory, opened with `url`'s options.
    public func makeTemporaryStorage(like url: BackendURL) throws -> any TemporaryStorage {
        _ = try configuration(for: url)
        return try LMDBTemporaryStorage(options: url.options)
    }

    private func location(of url: BackendURL) throws -> String {
        if let authority = url.authority {
            guard authority.host.isEmpty, authority.user == nil, authority.port == nil else {
                throw BackendConfigurationError.invalidLocation(
                    url, "an lmdb URL names no host; write lmdb:///absolute/dir or lmdb:relative/dir")
            }
        }
        guard !url.path.isEmpty, url.path != "/" else {
            throw BackendConfigurationError.invalidLocation(
                url, "no directory; write lmdb:///absolute/dir or lmdb:relative/dir")
        }
        var path = url.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// The option `name` as a size in bytes: a whole number with an optional unit `KiB`,
    /// `MiB`, `GiB` or `TiB`.
    /// `zeroMeans`: what a size of 0 (`0`, `0MiB`, …) stands for, when the option accepts it.
    private func size(
        _ name: String, in url: BackendURL, default defaultValue: Int, zeroMeans: String? = nil
    ) throws -> Int {
        guard let text = url.options.last(where: { $0.name == name })?.value else { return defaultValue }
        let units: [(String, Int)] = [("KiB", 10), ("MiB", 20), ("GiB", 30), ("TiB", 40), ("", 0)]
        for (unit, shift) in units where text.hasSuffix(unit) {
            if let number = Int(text.dropLast(unit.count)), number > 0 || (number == 0 && zeroMeans != nil),
                number <= (Int.max >> shift)
            {
                return number << shift
            }
            break
        }
        let zero = zeroMeans.map { ", or 0 for \($0)" } ?? ""
        throw BackendConfigurationError(
            .invalidOptionValue,
            "option '\(name)' has value '\(text)'; accepted: a size such as 65536, 64KiB, 1GiB\(zero)", url: url)
    }
}
