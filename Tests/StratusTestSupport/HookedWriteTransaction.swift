import StratusBackend

/// A write transaction that sends each call through a ``BackendHooks`` hook.
final class HookedWriteTransaction: BackendWriteTransaction {
    private let base: any BackendWriteTransaction
    private let hooks: BackendHooks

    init(base: any BackendWriteTransaction, hooks: BackendHooks) {
        self.base = base
        self.hooks = hooks
    }

    func get(_ key: [UInt8]) throws -> [UInt8]? {
        try hooks.get(base, key)
    }

    func scan(_ range: KeyRange, limit: Int, reverse: Bool) throws -> [KeyValuePair] {
        try hooks.scan(base, range, limit, reverse)
    }

    func set(_ key: [UInt8], _ value: [UInt8]) throws {
        try hooks.set(base, key, value)
    }

    func clear(_ key: [UInt8]) throws {
        try hooks.clear(base, key)
    }

    func clearRange(_ range: KeyRange) throws {
        try hooks.clearRange(base, range)
    }
}
