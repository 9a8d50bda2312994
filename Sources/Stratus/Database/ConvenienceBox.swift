import Foundation

/// A value shared between an operation's callbacks (which run serially on its callback queue)
/// and the convenience method that made the operation; locked, so it may be read anywhere.
final class ConvenienceBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    /// The current value.
    var value: Value {
        lock.withLock { stored }
    }

    /// Changes the value in place.
    func update(_ body: (inout Value) -> Void) {
        lock.withLock { body(&stored) }
    }
}
