public import StratusBackend
public import StratusConformance

/// A fixture whose every handle is a ``WrappingBackend`` over a handle of another fixture's
/// storage.
///
/// `makeHooks` runs once per storage (so once per conformance case): hooks that keep state,
/// such as a log of the last write, get fresh state for every case, shared by all the handles
/// the case opens on that storage.
///
/// ```swift
/// let broken = WrappingFixture(name: "reverse-ignores-limit", base: InMemoryFixture()) {
///     var hooks = BackendHooks()
///     hooks.scan = { t, range, limit, reverse in
///         try t.scan(range, limit: reverse ? Int.max : limit, reverse: reverse)
///     }
///     return hooks
/// }
/// ```
public struct WrappingFixture: BackendFixture {
    /// The name given at creation, for reports.
    public let name: String
    /// The fixture whose storage is wrapped.
    public let base: any BackendFixture
    /// Makes the hooks of one storage.
    public let makeHooks: @Sendable () -> BackendHooks

    /// A fixture wrapping `base` with the hooks `makeHooks` returns for each storage.
    public init(
        name: String, base: any BackendFixture,
        makeHooks: @escaping @Sendable () -> BackendHooks = { BackendHooks() }
    ) {
        self.name = name
        self.base = base
        self.makeHooks = makeHooks
    }

    /// The base fixture's storage, wrapped.
    public func makeStorage() async throws -> any FixtureStorage {
        WrappingStorage(base: try await base.makeStorage(), hooks: makeHooks())
    }
}

/// Storage whose handles are ``WrappingBackend``s over the base storage's handles.
public struct WrappingStorage: FixtureStorage {
    /// The storage that is wrapped.
    public let base: any FixtureStorage
    /// The hooks of every handle.
    public let hooks: BackendHooks

    /// Storage wrapping `base` with `hooks`.
    public init(base: any FixtureStorage, hooks: BackendHooks) {
        self.base = base
        self.hooks = hooks
    }

    /// A base handle, wrapped.
    public func open() throws -> any DatabaseBackend {
        WrappingBackend(base: try base.open(), hooks: hooks)
    }

    /// Destroys the base storage.
    public func destroy() throws {
        try base.destroy()
    }
}
