public import StratusBackend
public import StratusConformance
public import StratusInMemory

/// The conformance fixture of ``InMemoryBackend``: every case gets a new ``InMemoryStore``,
/// and every handle the case opens is an `InMemoryBackend` on that store.
public struct InMemoryFixture: BackendFixture {
    /// A fixture.
    public init() {}

    /// `"in-memory"`.
    public var name: String { "in-memory" }

    /// A new, empty store.
    public func makeStorage() async throws -> any FixtureStorage {
        InMemoryFixtureStorage(store: InMemoryStore())
    }
}

/// One ``InMemoryStore`` made by ``InMemoryFixture`` for one case.
public struct InMemoryFixtureStorage: FixtureStorage {
    /// The store every handle opens onto.
    public let store: InMemoryStore

    /// Storage over `store`.
    public init(store: InMemoryStore) {
        self.store = store
    }

    /// A new handle on the store; it sees everything committed through earlier handles.
    public func open() throws -> any DatabaseBackend {
        InMemoryBackend(store: store)
    }

    /// Nothing to do: the store's memory is freed with the last reference to it.
    public func destroy() throws {}
}
