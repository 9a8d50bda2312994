public import StratusBackend

/// Makes storage for the conformance suite: one fresh, empty storage per case.
///
/// A backend's test target implements this once. Cases run in parallel, so every storage a
/// fixture makes must be independent of every other (a temporary directory, a fresh database
/// or schema). A fixture that cannot reach its backend throws from ``makeStorage()``, and the
/// case fails saying why: nothing is ever skipped.
public protocol BackendFixture: Sendable {
    /// A short name for reports, such as `"sqlite"`.
    var name: String { get }

    /// Creates fresh, empty storage reserved for one case.
    func makeStorage() async throws -> any FixtureStorage
}

/// One storage location made by a ``BackendFixture`` for one case.
public protocol FixtureStorage: Sendable {
    /// Opens a new backend handle on this storage.
    ///
    /// The suite closes a handle and opens another to check durability across a reopen, and
    /// may hold two open handles at once to check that two connections (or processes) on one
    /// store stay correct.
    func open() throws -> any DatabaseBackend

    /// Removes the storage. Called once, after the case, whatever its outcome.
    func destroy() throws
}
