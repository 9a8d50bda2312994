public import StratusBackend

/// What a ``WrappingBackend`` does for each call of the backend SPI.
///
/// Every hook receives the wrapped object (the base backend, or the base backend's transaction)
/// and the call's arguments, and defaults to forwarding the call unchanged. A deliberately
/// broken backend for testing the conformance suite replaces one or two hooks:
///
/// ```swift
/// var hooks = BackendHooks()
/// hooks.scan = { transaction, range, limit, reverse in
///     // Broken: a reverse scan ignores its limit.
///     try transaction.scan(range, limit: reverse ? Int.max : limit, reverse: reverse)
/// }
/// ```
///
/// The `read` and `write` hooks decide how a body runs. They get the base backend and the
/// body, erased to return `Void`, and must call the body at most once with a transaction of
/// their choice (the base backend's, or one of their own). The wrapping backend then wraps
/// that transaction with the transaction hooks before the body sees it.
public struct BackendHooks: Sendable {
    /// A read body, its result erased.
    public typealias ReadBody = (any BackendReadTransaction) throws -> Void
    /// A write body, its result erased.
    public typealias WriteBody = (any BackendWriteTransaction) throws -> Void

    /// Runs a read body. Defaults to `base.read(body)`.
    public var read: @Sendable (_ base: any DatabaseBackend, _ body: ReadBody) throws -> Void = {
        base, body in try base.read(body)
    }

    /// Runs a write body. Defaults to `base.write(body)`.
    public var write: @Sendable (_ base: any DatabaseBackend, _ body: WriteBody) throws -> Void = {
        base, body in try base.write(body)
    }

    /// Closes the handle. Defaults to `base.close()`.
    public var close: @Sendable (_ base: any DatabaseBackend) throws -> Void = { base in
        try base.close()
    }

    /// `get`, in read and write transactions. Defaults to `transaction.get(key)`.
    public var get: @Sendable (_ transaction: any BackendReadTransaction, _ key: [UInt8]) throws -> [UInt8]? = {
        transaction, key in try transaction.get(key)
    }

    /// `scan`, in read and write transactions. Defaults to forwarding.
    public var scan:
        @Sendable (
            _ transaction: any BackendReadTransaction, _ range: KeyRange, _ limit: Int,
            _ reverse: Bool
        ) throws -> [KeyValuePair] = { transaction, range, limit, reverse in
            try transaction.scan(range, limit: limit, reverse: reverse)
        }

    /// `set`. Defaults to `transaction.set(key, value)`.
    public var set:
        @Sendable (_ transaction: any BackendWriteTransaction, _ key: [UInt8], _ value: [UInt8])
            throws -> Void = { transaction, key, value in try transaction.set(key, value) }

    /// `clear`. Defaults to `transaction.clear(key)`.
    public var clear: @Sendable (_ transaction: any BackendWriteTransaction, _ key: [UInt8]) throws -> Void = {
        transaction, key in try transaction.clear(key)
    }

    /// `clearRange`. Defaults to `transaction.clearRange(range)`.
    public var clearRange: @Sendable (_ transaction: any BackendWriteTransaction, _ range: KeyRange) throws -> Void = {
        transaction, range in try transaction.clearRange(range)
    }

    /// Hooks that forward every call unchanged.
    public init() {}
}
