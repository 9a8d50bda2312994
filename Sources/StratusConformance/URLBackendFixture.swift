public import StratusBackend

/// A fixture for any backend a URL names: every case gets fresh storage made by the URL's
/// provider (`BackendProvider.makeTemporaryStorage(like:)`) — a new temporary file for
/// `sqlite:///…`, a new store for `memory:` — with the URL's options.
///
/// ```swift
/// let registry = BackendRegistry([SQLiteBackendProvider()])
/// let fixture = try URLBackendFixture(BackendURL("sqlite:///tmp/x.sqlite?durability=normal"), registry: registry)
/// try await ConformanceSuite.runAll(with: fixture)
/// ```
///
/// This is what `stratus conformance --backend URL` runs.
public struct URLBackendFixture: BackendFixture {
    /// The URL whose kind of storage every case gets.
    public let url: BackendURL
    /// Where the URL's provider is registered.
    public let registry: BackendRegistry

    /// A fixture for `url`.
    ///
    /// - Throws: `BackendConfigurationError` when `url`'s scheme is not registered in
    ///   `registry` or sets an option its provider does not accept.
    public init(_ url: BackendURL, registry: BackendRegistry = .shared) throws {
        _ = try registry.provider(for: url)
        self.url = url
        self.registry = registry
    }

    /// The URL's scheme, such as `sqlite`.
    public var name: String { url.scheme }

    /// New temporary storage like the URL's.
    public func makeStorage() async throws -> any FixtureStorage {
        TemporaryFixtureStorage(storage: try registry.makeTemporaryStorage(like: url))
    }
}

/// A ``TemporaryStorage`` seen as the suite's ``FixtureStorage``.
private struct TemporaryFixtureStorage: FixtureStorage {
    let storage: any TemporaryStorage

    func open() throws -> any DatabaseBackend { try storage.open() }

    func destroy() throws { try storage.destroy() }
}
