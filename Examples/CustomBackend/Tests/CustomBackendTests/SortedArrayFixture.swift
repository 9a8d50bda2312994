import CustomBackend
import StratusBackend
import StratusConformance

/// The conformance fixture of ``SortedArrayBackend``: every case gets a new, empty
/// ``SortedArrayStore``, and every handle the case opens is a `SortedArrayBackend` on it.
///
/// Stores share nothing, so the suite's cases can run in parallel.
struct SortedArrayFixture: BackendFixture {
    var name: String { "sorted-array" }

    func makeStorage() async throws -> any FixtureStorage {
        SortedArrayStorage(store: SortedArrayStore())
    }
}

/// One store made by ``SortedArrayFixture`` for one case.
struct SortedArrayStorage: FixtureStorage {
    let store: SortedArrayStore

    /// A new handle on the store: it sees everything committed through earlier handles, which
    /// is what the suite's reopen cases check.
    func open() throws -> any DatabaseBackend {
        SortedArrayBackend(store: store)
    }

    /// Nothing to remove: the store's memory is freed with the last reference to it.
    func destroy() throws {}
}
