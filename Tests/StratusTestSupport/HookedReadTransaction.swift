import StratusBackend

/// A read transaction that sends each call through a ``BackendHooks`` hook.
final class HookedReadTransaction: BackendReadTransaction {
    private let base: any BackendReadTransaction
    private let hooks: BackendHooks

    init(base: any BackendReadTransaction, hooks: BackendHooks) {
        self.base = base
        self.hooks = hooks
    }

    func get(_ key: [UInt8]) throws -> [UInt8]? {
        try hooks.get(base, key)
    }

    func scan(_ range: KeyRange, limit: Int, reverse: Bool) throws -> [KeyValuePair] {
        try hooks.scan(base, range, limit, reverse)
    }
}
