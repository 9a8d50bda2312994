import Dispatch

/// A task executor on a serial dispatch queue of its own, off Swift's cooperative pool: where a
/// case body runs (and, in the package's tests, an in-process server a case talks to).
///
/// Case bodies wait for operations by blocking (a semaphore until the completion block runs).
/// On the cooperative pool — two threads on a two-core machine — two such cases would take
/// every thread, and whatever the case waits for that needs the pool (an in-process server's
/// request handling, for a remote container) could never run. A serial queue's thread may
/// block without starving anyone.
package final class SerialQueueExecutor: TaskExecutor, @unchecked Sendable {
    private let queue: DispatchQueue

    /// An executor whose queue is labelled `label`.
    package init(label: String) {
        queue = DispatchQueue(label: label)
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
