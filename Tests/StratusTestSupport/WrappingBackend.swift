public import StratusBackend

/// A backend that forwards every call to another one through ``BackendHooks``.
///
/// With the default hooks it behaves exactly like its base. Tests of the conformance suite
/// change a hook to build a deliberately broken backend and check that the suite notices.
public final class WrappingBackend: DatabaseBackend {
    /// The backend calls are forwarded to.
    public let base: any DatabaseBackend
    /// What each call does.
    public let hooks: BackendHooks

    /// A backend forwarding to `base` through `hooks`.
    public init(base: any DatabaseBackend, hooks: BackendHooks = BackendHooks()) {
        self.base = base
        self.hooks = hooks
    }

    /// Runs `body` through the `read` hook, with the transaction hooks around its transaction.
    public func read<T>(_ body: (any BackendReadTransaction) throws -> T) throws -> T {
        var result: T?
        try hooks.read(base) { transaction in
            result = try body(HookedReadTransaction(base: transaction, hooks: hooks))
        }
        guard let result else {
            throw BackendError(.internal, "the read hook returned without running the body")
        }
        return result
    }

    /// Runs `body` through the `write` hook, with the transaction hooks around its transaction.
    public func write<T>(_ body: (any BackendWriteTransaction) throws -> T) throws -> T {
        var result: T?
        try hooks.write(base) { transaction in
            result = try body(HookedWriteTransaction(base: transaction, hooks: hooks))
        }
        guard let result else {
            throw BackendError(.internal, "the write hook returned without running the body")
        }
        return result
    }

    /// Closes through the `close` hook.
    public func close() throws {
        try hooks.close(base)
    }
}
