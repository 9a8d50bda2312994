import Synchronization

/// A value shared with operation callbacks, which run on the operation's thread.
///
/// A class around a `Mutex`, because a `Mutex` (non-copyable) cannot be captured by the
/// escaping `@Sendable` blocks of an operation.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    /// A box holding `value`.
    init(_ value: Value) {
        mutex = Mutex(value)
    }

    /// The current value.
    var value: Value { mutex.withLock { $0 } }

    /// Changes the value under the lock.
    func update(_ body: (inout Value) -> Void) {
        mutex.withLock { body(&$0) }
    }
}
