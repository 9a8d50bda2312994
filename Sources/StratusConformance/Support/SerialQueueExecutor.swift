import Dispatch

/// Where a case body runs: a serial dispatch queue of its own, off Swift's cooperative pool.
///
/// Case bodies wait for operations by blocking (a semaphore until the completion block runs).
/// On the cooperative pool — two threads on a two-core machine — two such cases would take
/// every thread, and whatever the case waits for that needs the pool (an in-process server's
/// request handling, for a remote container) could never run. A serial queue's thread may
/// block without starving anyone.
final class CaseExecutor: TaskExecutor, @unchecked Sendable {
    private let queue: DispatchQueue

    /// An executor for the case `caseID`.
    init(caseID: String) {
        queue = DispatchQueue(label: "stratus.conformance.\(caseID)")
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
