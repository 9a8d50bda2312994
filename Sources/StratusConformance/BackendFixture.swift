public import Stratus
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

/// Storage that containers reach through something other than a backend handle of this
/// process — a `stratusd` serving it, for remote containers.
///
/// ``ConformanceContext/container(identifier:)`` asks the storage for its containers, so the
/// engine-level cases run unchanged through them. Cases with a ``ConformanceCase/storageAccess``
/// reason do not apply to such storage.
public protocol ContainerStorage: FixtureStorage {
    /// A new container with `identifier` on this storage, as a new process of one user would
    /// make it: every container of one case shares the user, and so the private database.
    func container(identifier: String) throws -> CKContainer

    /// A new container with `identifier` in `environment` (decision 0020), as
    /// ``container(identifier:)`` makes it in development.
    func container(identifier: String, environment: CKContainer.Environment) throws -> CKContainer

    /// Stops what serves the storage. Called once after the case, before
    /// ``FixtureStorage/destroy()``.
    func stop() async
}
