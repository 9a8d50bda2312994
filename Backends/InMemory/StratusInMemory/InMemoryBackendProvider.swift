public import StratusBackend
import Synchronization

/// Makes ``InMemoryBackend``s from `memory:` URLs.
///
/// | URL | Store |
/// |---|---|
/// | `memory:` | a new, private, empty store for every backend made |
/// | `memory:name` | the store called `name`, shared by every backend this provider makes for `memory:name` |
///
/// A named store lives as long as its provider (for the provider registered in
/// `BackendRegistry.shared`, until the process exits, or until ``removeNamedStore(_:)``); it is
/// how two containers, or a handle closed and opened again, share data in memory. Nothing is
/// ever written to disk. `memory:` URLs take no options.
public struct InMemoryBackendProvider: BackendProvider {
    private let namedStores = NamedStores()

    /// A provider with no named stores yet.
    public init() {}

    /// `memory`.
    public var scheme: String { "memory" }

    /// One line for listings.
    public var summary: String { "in memory, nothing on disk: a private store, or a named store shared in the process" }

    /// The URL forms.
    public var examples: [String] { ["memory:", "memory:name"] }

    /// None.
    public var options: [BackendOption] { [] }

    /// A handle on a new private store (`memory:`) or on the named store (`memory:name`).
    ///
    /// - Throws: ``BackendConfigurationError`` for a URL with `//` (`memory://x`).
    public func makeBackend(for url: BackendURL) throws -> any DatabaseBackend {
        guard url.authority == nil else {
            throw BackendConfigurationError.invalidLocation(
                url, "write memory: for a private store or memory:name for a named one, without '//'")
        }
        if url.path.isEmpty { return InMemoryBackend() }
        return InMemoryBackend(store: namedStores.store(named: url.path))
    }

    /// A new private store (the name in `url`, if any, is ignored: temporary storage is never
    /// shared).
    public func makeTemporaryStorage(like url: BackendURL) throws -> any TemporaryStorage {
        InMemoryTemporaryStorage(store: InMemoryStore())
    }

    /// Forgets the store called `name`: later `memory:name` backends get a new, empty store,
    /// while open handles keep the old one until they are released.
    public func removeNamedStore(_ name: String) {
        namedStores.remove(name)
    }
}

/// The named stores of one provider.
private final class NamedStores: Sendable {
    private let stores = Mutex<[String: InMemoryStore]>([:])

    func store(named name: String) -> InMemoryStore {
        stores.withLock { stores in
            if let existing = stores[name] { return existing }
            let store = InMemoryStore()
            stores[name] = store
            return store
        }
    }

    func remove(_ name: String) {
        _ = stores.withLock { $0.removeValue(forKey: name) }
    }
}

/// One private ``InMemoryStore``; every handle opened is an ``InMemoryBackend`` on it.
private struct InMemoryTemporaryStorage: TemporaryStorage {
    let store: InMemoryStore

    var url: BackendURL { BackendURL(scheme: "memory", path: "") }

    func open() throws -> any DatabaseBackend {
        InMemoryBackend(store: store)
    }

    /// Nothing to remove: the memory is freed with the last reference to the store.
    func destroy() throws {}
}
