import Foundation

/// Runs `body`, which blocks (waits on a semaphore or a child process), on a thread of its own
/// and awaits its result.
///
/// Swift concurrency's pool has one thread per core — two here. A test that blocks one of them
/// (a `Task.detached` that waits is still on the pool) delays every other test's async steps;
/// in a parallel run enough of them held both for minutes.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// ``offPool(_:)`` for a body that cannot fail.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
